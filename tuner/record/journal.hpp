// The sweep's journal: one JSON line per measured configuration, appended and
// flushed as soon as it is measured, so that Ctrl-C or kill -9 loses at most
// the configuration in flight, and `--resume` picks up where it stopped.
//
// Every record is one complete JSON object and a newline: a last line without
// its newline was torn by a kill and is reported, cut off and measured again;
// an unreadable line elsewhere is reported by its number. The first line is the
// header: what defines the journal's measurements, which a resume must match.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/record/leaderboard_model.hpp"
#include "tuner/record/result.hpp"

namespace attn {

class Journal {
 public:
  struct Header {
    // What defines a measurement (spec and source hashes, shapes, device, seed,
    // timing and check settings): a resumed sweep must match it field by field.
    nlohmann::json measurement = nlohmann::json::object();
    std::string command;  // the command that started the sweep
    std::string started_utc;

    nlohmann::json to_json() const;
  };

  struct Contents {
    bool exists = false;                // a non-empty journal is there
    bool finished = false;              // the sweep that wrote it ran to the end
    Header header;                      // as recorded
    std::string damaged;                // why its header cannot be read; empty when it can
    std::string mismatch;               // the first field of the header that differs from the expected one; empty when none
    std::vector<std::string> problems;  // lines that were not read, by number, and what happens to them
    std::map<std::string, ConfigResult> results;  // by Job::key()
    std::vector<LeaderboardResume> resumes;
    std::uintmax_t intact_bytes = 0;  // up to the end of the last complete line
  };

  // Reads an existing journal and compares its header with EXPECTED.
  static Contents read(const std::filesystem::path& path, const Header& expected);

  // Starts a new journal at PATH with HEADER, replacing any file there.
  Journal(const std::filesystem::path& path, const Header& header);
  // Continues the journal CONTENTS was read from: cuts a torn last line off and records RESUME.
  Journal(const std::filesystem::path& path, const Contents& contents, const LeaderboardResume& resume);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  void append(const ConfigResult& result);
  void mark_finished();  // the sweep ran to the end: a new sweep may start over this journal

  const std::filesystem::path& path() const { return path_; }

 private:
  void open(const char* mode);
  void write_line(const nlohmann::json& j);
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

// The first field where RECORDED and NOW differ, as "timing.max_time_s: 1.0 when
// the sweep started, 0.1 now"; empty when they are the same.
std::string first_difference(const nlohmann::json& recorded, const nlohmann::json& now, const std::string& path = "");

}  // namespace attn

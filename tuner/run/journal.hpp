// The sweep's journal: one JSON line per measured configuration, appended and
// flushed as soon as it is measured, so that Ctrl-C or kill -9 loses at most
// the configuration in flight, and `--resume` picks up where it stopped.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/run/result.hpp"

namespace attn {

class Journal {
 public:
  // The header identifies what the journal belongs to: a resumed sweep must match it.
  struct Header {
    std::string spec_sha256;
    std::string device_id;
    std::uint64_t seed = 0;
    nlohmann::json to_json() const;
  };

  struct Contents {
    bool exists = false;
    bool finished = false;   // the sweep that wrote it ran to the end
    std::string mismatch;    // why the header does not match the expected one; empty when it does
    std::map<std::string, ConfigResult> results;  // by Job::key()
  };

  // Reads an existing journal. A torn last line (killed mid-write) is ignored.
  static Contents read(const std::filesystem::path& path, const Header& expected);

  // Opens PATH for appending; writes the header when the file is new or TRUNCATE is set.
  Journal(const std::filesystem::path& path, const Header& header, bool truncate);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  void append(const ConfigResult& result);
  void mark_finished();  // the sweep ran to the end: a new sweep may start over this journal

  const std::filesystem::path& path() const { return path_; }

 private:
  void write_line(const nlohmann::json& j);
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

}  // namespace attn

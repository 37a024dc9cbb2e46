#include "tuner/record/journal.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/json_text.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

constexpr int kFormat = 2;  // 1: a header of spec_sha256, device and seed only

std::string shown(const nlohmann::json& j) {
  std::string s = j.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

void read_header_fields(const nlohmann::json& j, Journal::Contents& c) {
  if (!j.is_object() || j.value("type", "") != "header") {
    c.damaged = fmt::format("line 1 is not the journal's header ({})", shown(j));
    return;
  }
  if (j.value("format", 1) < kFormat) {
    c.mismatch =
        "it was written by an older attn-tune, which did not record the timing settings and source hashes "
        "its results were measured with";
    return;
  }
  if (!j.contains("measurement") || !j.at("measurement").is_object()) {
    c.damaged = "line 1, the journal's header, has no `measurement` object";
    return;
  }
  c.header.measurement = j.at("measurement");
  c.header.command = j.value("command", "");
  c.header.started_utc = j.value("started_utc", "");
}

void read_header(const nlohmann::json& j, Journal::Contents& c) {
  try {
    read_header_fields(j, c);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type: value() throws
    c.damaged = fmt::format("line 1, the journal's header, has a field of the wrong type ({})", e.what());
  }
}

}  // namespace

// Hand-written: the header carries its record type and format version, and reading it names what is damaged.
nlohmann::json Journal::Header::to_json() const {
  return {{"type", "header"},
          {"format", kFormat},
          {"measurement", measurement},
          {"command", command},
          {"started_utc", started_utc}};
}

std::string first_difference(const nlohmann::json& recorded, const nlohmann::json& now, const std::string& path) {
  if (recorded.is_object() && now.is_object()) {
    for (const auto& [key, value] : now.items()) {
      const std::string field = path.empty() ? key : path + "." + key;
      if (!recorded.contains(key))
        return fmt::format("{}: not recorded when the sweep started, {} now", field, shown(value));
      if (auto d = first_difference(recorded.at(key), value, field); !d.empty()) return d;
    }
    for (const auto& [key, value] : recorded.items())
      if (!now.contains(key))
        return fmt::format("{}: {} when the sweep started, not set now", path.empty() ? key : path + "." + key,
                           shown(value));
    return "";
  }
  return recorded == now ? "" : fmt::format("{}: {} when the sweep started, {} now", path, shown(recorded), shown(now));
}

Journal::Contents Journal::read(const std::filesystem::path& path, const Header& expected) {
  Contents c;
  if (!std::filesystem::exists(path)) return c;
  const std::string text = read_text_file(path);
  if (text.empty()) return c;
  c.exists = true;
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      c.problems.push_back(
          fmt::format("line {}, the last, is incomplete (the sweep stopped while writing it): cut off, "
                      "its configuration is measured again",
                      number));
      break;
    }
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    c.intact_bytes = start;
    nlohmann::json j;
    try {
      j = parse_json_text(line, fmt::format("line {}", number));
    } catch (const JsonTextError& e) {
      if (number == 1) c.damaged = fmt::format("line 1, the journal's header, is not JSON ({})", e.what());
      else
        c.problems.push_back(
            fmt::format("line {} is not JSON: ignored; if it held a result, that configuration is measured again", number));
      continue;
    }
    if (number == 1) {
      read_header(j, c);
      continue;
    }
    const std::string type =
        j.is_object() && j.contains("type") && j.at("type").is_string() ? j.at("type").get<std::string>() : "";
    if (type == "result") {
      try {
        ConfigResult r = ConfigResult::from_json(j.at("result"));
        c.results[r.job.key()] = std::move(r);
      } catch (const std::exception& e) {
        c.problems.push_back(
            fmt::format("line {} is an unreadable result ({}): its configuration is measured again", number, e.what()));
      }
    } else if (type == "resume") {
      c.resumes.push_back(j.get<LeaderboardResume>());  // the record's own fields, "type" beside them
    } else if (type == "finished") {
      c.finished = true;
    } else {
      c.problems.push_back(fmt::format("line {} is not a journal record ({}): ignored", number, shown(j)));
    }
  }
  if (c.damaged.empty() && c.mismatch.empty()) c.mismatch = first_difference(c.header.measurement, expected.measurement);
  return c;
}

Journal::Journal(const std::filesystem::path& path, const Header& header) : path_(path) {
  open("w");
  write_line(header.to_json());
}

Journal::Journal(const std::filesystem::path& path, const Contents& contents, const LeaderboardResume& resume)
    : path_(path) {
  if (!contents.exists) throw Error(fmt::format("{}: no journal to resume", path.string()));
  // A torn last line would otherwise run into the next record.
  if (std::filesystem::file_size(path) != contents.intact_bytes) std::filesystem::resize_file(path, contents.intact_bytes);
  open("a");
  nlohmann::json line = resume;
  line["type"] = "resume";
  write_line(line);
}

void Journal::open(const char* mode) {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
  file_ = std::fopen(path_.c_str(), mode);
  if (!file_) throw Error(fmt::format("cannot open {}: {}", path_.string(), std::strerror(errno)));
}

Journal::~Journal() {
  if (file_) std::fclose(file_);
}

void Journal::write_line(const nlohmann::json& j) {
  const std::string line = j.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw Error(
        fmt::format("cannot write {}: {}: what it held before is kept; once it can be written, run the "
                    "same command with --resume to measure only the rest",
                    path_.string(), std::strerror(errno)));
  ::fsync(::fileno(file_));
}

void Journal::append(const ConfigResult& result) { write_line({{"type", "result"}, {"result", result.to_json()}}); }

void Journal::mark_finished() { write_line({{"type", "finished"}}); }

}  // namespace attn

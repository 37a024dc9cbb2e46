#include "tuner/run/journal.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/core/error.hpp"

namespace attn {

nlohmann::json Journal::Header::to_json() const {
  return {{"type", "header"}, {"spec_sha256", spec_sha256}, {"device", device_id}, {"seed", seed}};
}

Journal::Contents Journal::read(const std::filesystem::path& path, const Header& expected) {
  Contents c;
  std::ifstream in(path);
  if (!in) return c;
  c.exists = true;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      continue;  // the line being written when the sweep was killed
    }
    const std::string type = j.value("type", "");
    if (type == "header") {
      if (j.value("spec_sha256", "") != expected.spec_sha256)
        c.mismatch = fmt::format("it was written for another version of the spec, its sources or --shape (sha256 {} there, {} here)",
                                 j.value("spec_sha256", "").substr(0, 12), expected.spec_sha256.substr(0, 12));
      else if (j.value("device", "") != expected.device_id)
        c.mismatch = fmt::format("it was written on device {}, not {}", j.value("device", ""), expected.device_id);
      else if (j.value("seed", std::uint64_t{0}) != expected.seed)
        c.mismatch = fmt::format("it was written with --seed {}, not {}", j.value("seed", std::uint64_t{0}), expected.seed);
    } else if (type == "result") {
      try {
        ConfigResult r = ConfigResult::from_json(j.at("result"));
        c.results[r.job.key()] = std::move(r);
      } catch (const std::exception& e) {
        spdlog::warn("{}: skipping an unreadable result ({}); it will be measured again", path.string(), e.what());
      }
    } else if (type == "finished") {
      c.finished = true;
    }
  }
  return c;
}

Journal::Journal(const std::filesystem::path& path, const Header& header, bool truncate) : path_(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const bool fresh = truncate || !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
  file_ = std::fopen(path.c_str(), fresh ? "w" : "a");
  if (!file_) throw Error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  if (fresh) write_line(header.to_json());
}

Journal::~Journal() {
  if (file_) std::fclose(file_);
}

void Journal::write_line(const nlohmann::json& j) {
  const std::string line = j.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw Error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
  ::fsync(::fileno(file_));
}

void Journal::append(const ConfigResult& result) { write_line({{"type", "result"}, {"result", result.to_json()}}); }

void Journal::mark_finished() { write_line({{"type", "finished"}}); }

}  // namespace attn

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

std::map<std::string, ConfigResult> Journal::read(const std::filesystem::path& path, const Header& expected,
                                                  bool* finished) {
  std::map<std::string, ConfigResult> results;
  if (finished) *finished = false;
  std::ifstream in(path);
  if (!in) return results;
  std::string line;
  bool header_seen = false;
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
      header_seen = true;
      if (j.value("spec_sha256", "") != expected.spec_sha256)
        throw Error(fmt::format("{} was written for another version of the spec (sha256 {} here, {} there): "
                                "start over without --resume, or restore that spec",
                                path.string(), expected.spec_sha256.substr(0, 12), j.value("spec_sha256", "").substr(0, 12)));
      if (j.value("device", "") != expected.device_id)
        throw Error(fmt::format("{} was written on device {}, not {}", path.string(), j.value("device", ""), expected.device_id));
      if (j.value("seed", std::uint64_t{0}) != expected.seed)
        throw Error(fmt::format("{} was written with --seed {}, not {}", path.string(), j.value("seed", 0), expected.seed));
    } else if (type == "result") {
      try {
        ConfigResult r = ConfigResult::from_json(j.at("result"));
        results[r.job.key()] = std::move(r);
      } catch (const std::exception& e) {
        spdlog::warn("{}: skipping an unreadable result ({}); it will be measured again", path.string(), e.what());
      }
    } else if (type == "finished" && finished) {
      *finished = true;
    }
  }
  if (!header_seen && !results.empty()) throw Error(fmt::format("{} has no header line", path.string()));
  return results;
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

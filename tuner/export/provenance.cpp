#include "tuner/export/provenance.hpp"

#include <fmt/format.h>

namespace attn {

std::vector<std::string> provenance_lines(const Leaderboard& lb) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}: {} on {} ({}, {}), {}, attn-tune {} ({}){}", lb.file.string(), lb.spec_name,
                              lb.device.name, lb.device.backend, lb.device.arch, lb.created_utc, lb.attn_tune_version,
                              lb.git_commit, lb.complete ? "" : ", INCOMPLETE (interrupted sweep)"));
  lines.push_back(fmt::format("  spec {} sha256 {}", lb.spec_path, lb.spec_sha256));
  for (const auto& s : lb.sources) {
    lines.push_back(fmt::format("  source {} {} sha256 {}", s.backend, s.path, s.sha256));
    for (std::size_t i = 1; i < s.files.size(); ++i)  // files[0] is the source itself
      lines.push_back(fmt::format("    includes {} sha256 {}", s.files[i].path.generic_string(), s.files[i].sha256));
  }
  return lines;
}

}  // namespace attn

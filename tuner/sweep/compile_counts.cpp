#include "tuner/sweep/compile_counts.hpp"

#include <set>

#include <fmt/format.h>

namespace attn {

std::string CompileCounts::summary() const { return fmt::format("{} compiled, {} from cache", compiled, from_cache); }

CompileCounts count_compilations(const std::vector<ConfigResult>& results) {
  CompileCounts counts;
  std::set<std::string> seen;
  for (const auto& r : results) {
    // Skipped configurations never reached the compiler; the others all did (the program is built before anything runs).
    if (r.status == Status::skipped || r.defines.empty()) continue;
    if (!seen.insert(r.job.kernel + "|" + r.defines).second) continue;
    (r.compile_cached ? counts.from_cache : counts.compiled) += 1;
  }
  return counts;
}

}  // namespace attn

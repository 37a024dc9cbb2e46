// Ties: configurations whose medians lie within the measured noise of the best
// are not ranked by that noise. They are measured again in turns (A B C, A B C,
// ...), and those still within noise of the fastest form the tied set, ordered
// by a fixed rule, so that every sweep exports the same winner unless one
// configuration is really faster:
//   1. fewest registers per thread (the most occupancy headroom),
//   2. then the least shared/local memory per block,
//   3. then the spec's configuration order (parameter values, first parameter first).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/record/result.hpp"
#include "tuner/record/tie_settings.hpp"

namespace attn {

inline constexpr const char* kTieRule = "fewest registers, then least shared memory, then configuration order";

// Measures JOBS (distinct, verified before) once more each; results in any order.
using Remeasure = std::function<std::vector<ConfigResult>(const std::vector<Job>&)>;

// Per (kernel, shape) of RESULTS: finds the candidates within noise of the best,
// re-measures them SETTINGS.rounds times in turns and sets `tie` on each member
// of a tied set of two or more. NOTE, when given, hears what is being re-timed.
void resolve_ties(std::vector<ConfigResult>& results, const Remeasure& remeasure, const TieSettings& settings,
                  const std::function<void(const std::string&)>& note = {});

// The same over one (kernel, shape)'s GROUP, of ok results with timings; `tie` set as above.
void resolve_tied_set(std::vector<ConfigResult*> group, const Remeasure& remeasure, const TieSettings& settings,
                      const std::function<void(const std::string&)>& note = {});

// The tied set of ranked ENTRIES (winner first) for the leaderboard: {"tied":
// [keys], "winner": key, "rule": kTieRule}; null when there is none.
template <typename Entries>
nlohmann::json ties_summary(const Entries& entries) {
  nlohmann::json tied = nlohmann::json::array();
  for (const auto& e : entries)
    if (e.tie) tied.push_back(config_key(e.job.config));
  if (tied.empty()) return nullptr;
  return {{"tied", tied}, {"winner", tied.front()}, {"rule", kTieRule}};
}

}  // namespace attn

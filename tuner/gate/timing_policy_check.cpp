#include "tuner/gate/timing_policy_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"

namespace attn {

void require_one_timing_policy(const std::vector<const Leaderboard*>& leaderboards, const std::string& action) {
  if (leaderboards.empty()) return;
  const TimingPolicy first = leaderboards.front()->settings.timing.policy;
  bool mixed = false;
  std::vector<std::string> named;
  for (const Leaderboard* lb : leaderboards) {
    mixed = mixed || lb->settings.timing.policy != first;
    named.push_back(fmt::format("{} ({})", lb->file.string(), timing_policy_name(lb->settings.timing.policy)));
  }
  if (mixed)
    throw UsageError(
        fmt::format("cannot {} results of different timing policies: {}; time them under one policy "
                    "(--timing cold, warm or graph; docs/timing.md)",
                    action, fmt::join(named, ", ")));
}

}  // namespace attn

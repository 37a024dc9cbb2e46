#include "tuner/export/config_choice.hpp"

#include <cmath>
#include <map>

namespace attn {

std::optional<ConfigChoice> choose_config(const std::vector<const LeaderboardGroup*>& groups) {
  struct Tally {
    Config config;
    int ranked_in = 0;
    double log_relative_sum = 0;
  };
  std::map<std::string, Tally> by_key;  // ordered: ties resolve to the smaller key
  for (const auto* group : groups) {
    const ConfigResult* best = group->best();
    if (!best) continue;
    for (const ConfigResult* r : group->ranked()) {
      Tally& t = by_key[config_key(r->job.config)];
      t.config = r->job.config;
      ++t.ranked_in;
      t.log_relative_sum += std::log(r->timing->median_ms / best->timing->median_ms);
    }
  }
  std::optional<ConfigChoice> choice;
  for (const auto& [key, t] : by_key) {
    const double geomean = std::exp(t.log_relative_sum / t.ranked_in);
    const bool better = !choice || t.ranked_in > choice->ranked_in ||
                        (t.ranked_in == choice->ranked_in && geomean < choice->geomean_relative);
    if (better) choice = ConfigChoice{t.config, key, t.ranked_in, static_cast<int>(groups.size()), geomean};
  }
  return choice;
}

}  // namespace attn

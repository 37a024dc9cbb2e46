// One configuration for many (device, shape) results: a tuned table's row
// (shapes of one bucket, devices of one architecture) and its default.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

struct ConfigChoice {
  Config config;
  std::string key;    // config_key(config)
  int ranked_in = 0;  // groups in which it ranked (status ok)
  int groups = 0;     // groups it was chosen over
  // Geometric mean, over the groups it ranked in, of its median time over the
  // group's best median: 1 when it is the fastest everywhere.
  double geomean_relative = 0;
};

// Among the configurations that ranked in the most of GROUPS (a default must
// work where it is used), the one with the lowest geometric-mean relative
// time; ties go to the smaller key. Nothing when no group ranked anything.
std::optional<ConfigChoice> choose_config(const std::vector<const LeaderboardGroup*>& groups);

}  // namespace attn

// The leaderboard: every configuration's result per (kernel, shape), ranked by
// median time, with everything needed to reproduce and trust it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/backend/device.hpp"
#include "tuner/run/result.hpp"
#include "tuner/run/settings.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

inline constexpr const char* kLeaderboardSchema = "attn-tune.leaderboard/1";

struct LeaderboardContext {
  const Spec& spec;
  DeviceInfo device;
  RunSettings settings;
  std::string command;       // the command line that produced it
  std::string shape_filter;  // --shape as given, empty when none
  bool complete = true;      // false when the sweep was interrupted
};

// With determinism checks in the results, each group gets a `determinism`
// summary (the cost of determinism); with settings.determinism.require, ok
// configurations failing a required check get `excluded` (why) instead of a rank.
nlohmann::json build_leaderboard(const LeaderboardContext& context, const std::vector<ConfigResult>& results);

// Ranks one group's results: ok ones by median time (rank 1 = fastest), then the rest by status.
std::vector<ConfigResult> ranked(std::vector<ConfigResult> results);

// The terminal view: each group's top TOP entries, its baseline, and what did not rank.
std::string leaderboard_table(const nlohmann::json& leaderboard, int top);

}  // namespace attn

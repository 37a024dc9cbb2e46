// Building the leaderboard: every configuration's result per (kernel, shape),
// ranked by median time, with everything needed to reproduce and trust it.
// The format itself is tuner/record/leaderboard_model.hpp.
#pragma once

#include <string>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/record/leaderboard_model.hpp"
#include "tuner/record/result.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct LeaderboardContext {
  const Spec& spec;
  DeviceInfo device;
  RunSettings settings;
  std::string command;                     // the command line that started the sweep
  std::string shape_filter;                // --shape as given, empty when none
  bool complete = true;                    // false when the sweep was interrupted
  std::string started_utc;                 // when the sweep started; empty: now
  std::vector<LeaderboardResume> resumes;  // the --resume commands that continued it
};

// With determinism checks in the results, each group gets a `determinism`
// summary (the cost of determinism); with settings.determinism.require, ok
// configurations failing a required check get `excluded` (why) instead of a rank.
Leaderboard build_leaderboard(const LeaderboardContext& context, const std::vector<ConfigResult>& results);

// One (kernel, shape) ranked: ok results by median time (rank 1 = fastest),
// those failing a check in REQUIRE excluded, then the rest by status.
LeaderboardGroup ranked_group(std::string kernel, std::string shape, nlohmann::json shape_fields,
                              std::vector<ConfigResult> results, const std::vector<std::string>& require,
                              std::string baseline_preset);

// Ranks one group's results: ok ones by median time (rank 1 = fastest), then the rest by status.
std::vector<ConfigResult> ranked(std::vector<ConfigResult> results);

// The kernel sources of SPEC with their sha256: what the results were measured with.
std::vector<LeaderboardSource> source_identities(const Spec& spec);

// The UTC time now, as leaderboards record it: "2026-11-24T18:00:00Z".
std::string utc_now();

}  // namespace attn

// Results timed under different policies (cold, warm, graph) measure different
// things: commands that compare or merge leaderboards refuse to mix them.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

// Throws UsageError naming each file and its policy when LEADERBOARDS were not
// all timed under one policy. ACTION says what was refused ("merge", "compare").
void require_one_timing_policy(const std::vector<const Leaderboard*>& leaderboards, const std::string& action);

}  // namespace attn

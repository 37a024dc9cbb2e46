// The sweep's terminal view of a leaderboard: each group's best configurations
// with the marks a reader needs to trust the order (noise target missed, ties
// within noise), its baseline, and why the rest did not rank.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_model.hpp"

namespace attn {

// Each group's top TOP ranked entries, its baseline, and the first reason of every status that did not rank.
std::string leaderboard_table(const Leaderboard& leaderboard, int top);

// The mark of ranked entry I (0-based) of RANKED: "noisy" when its timing
// stopped before meeting the noise target, "~#k" when its median is within the noise of rank k's
// (the best's, else the row above's); empty when neither.
std::string ranking_mark(const std::vector<const LeaderboardEntry*>& ranked, std::size_t i);

}  // namespace attn

// The HTML report's tables: a group's ranked configurations, what did not
// rank and why, and the comparison across leaderboards.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/report/report_data.hpp"

namespace attn {

// Every ranked configuration (--top of them): parameters, timing statistics,
// time over the best as a bar, throughput, share of the roofline, resources,
// verification error and determinism checks where recorded.
std::string html_ranked_table(const Leaderboard& lb, const LeaderboardGroup& group, const ReportOptions& options);

// Configurations that did not rank, with status, reason and compiler log; open when any failed.
std::string html_failures_table(const LeaderboardGroup& group);

// Each leaderboard's best per shallow (spec, kernel, shape) and how it does on the others.
std::string html_comparison_section(const std::vector<Leaderboard>& leaderboards);

}  // namespace attn

// `attn-tune report --format md`: the report's content as markdown, readable
// in a terminal and rendered on a CI page or in a pull request.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/report/report_data.hpp"

namespace attn {

std::string markdown_report(const std::vector<Leaderboard>& leaderboards, const ReportOptions& options);

}  // namespace attn

// `attn-tune report`: one self-contained HTML file (inline CSS and SVG, no
// script, no network) per set of leaderboards.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/report/report_data.hpp"

namespace attn {

std::string html_report(const std::vector<Leaderboard>& leaderboards, const ReportOptions& options);

}  // namespace attn

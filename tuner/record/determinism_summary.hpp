// What a leaderboard says about determinism: which configurations a required
// check keeps out of the ranking, and per (kernel, shape) the cost of
// determinism = the fastest passing configuration's time / the fastest's.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/record/result.hpp"

namespace attn {

// The checks --require names, as results record them: deterministic, batch_invariant, cache_growth.
const std::vector<std::string>& determinism_check_names();

// "batch-invariant" (the CLI's spelling) -> "batch_invariant"; throws UsageError for an unknown name.
std::string determinism_check_name(const std::string& cli_name);

// Whether CHECKS (a result's) passes every check in REQUIRED; when not, WHY
// tells which failed and its first mismatch. A check that does not apply
// (null) passes.
bool passes_checks(const nlohmann::json& checks, const std::vector<std::string>& required, std::string* why);

// For one group's results, fastest first: {"criterion", "checked",
// "deterministic", "batch_invariant", "passing", "fastest_overall",
// "fastest_passing", "cost"}; passing means the required checks, or
// deterministic and batch-invariant when none is required. Null when no
// timed result was checked.
nlohmann::json determinism_summary(const std::vector<ConfigResult>& fastest_first, const std::vector<std::string>& required);

// The leaderboard table's cell for an entry: deterministic / batch-invariant /
// cache growth as y, n or - ("y/n/-"); empty when the entry was not checked.
std::string checks_cell(const nlohmann::json& entry);

// The table's line for a group's summary: "determinism: fastest passing ... = 1.12x the fastest".
std::string determinism_summary_line(const nlohmann::json& summary);

// One line for tables and logs: "o[b=32,h=1,i=0,d=17]: 0.1234567 (B=1) vs 0.1234568 (B=33), 1 ulp; 12 elements differ".
std::string mismatch_summary(const nlohmann::json& mismatch);

}  // namespace attn

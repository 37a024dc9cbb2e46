// What the gate decided, for people: a table for the terminal and a markdown
// summary for a CI job's page ($GITHUB_STEP_SUMMARY).
#pragma once

#include <string>

#include "tuner/gate/gate.hpp"

namespace attn {

// "PASS: 12 comparisons: 1 FASTER, 11 SAME" / "FAIL: 2 of 12 comparisons failed (...)".
std::string gate_verdict_line(const GateReport& report);

std::string gate_table(const GateReport& report);
std::string gate_markdown(const GateReport& report);

}  // namespace attn

// The gate's comparisons as JUnit XML, which CI systems show as tests: one
// <testcase> per (kernel, shape, configuration), a <failure> for each that
// fails the gate; suites per (kernel, shape).
#pragma once

#include <string>

#include "tuner/gate/gate.hpp"

namespace attn {

std::string gate_junit(const GateReport& report);

}  // namespace attn

// What the determinism checks know about an operation's outputs: exactly what
// the operation declares (Problem::outputs()): the element type (for ulp
// distances), the named coordinates of an element (for mismatch reports) and
// where each sequence of the batch lies (batch invariance).
#pragma once

#include <vector>

#include "tuner/check/bitwise_compare.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

// One layout per output buffer of PROBLEM, in buffers() order.
std::vector<OutputLayout> output_layouts(const Problem& problem);

}  // namespace attn

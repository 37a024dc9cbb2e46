// What the determinism checks need to know about an operation's outputs: the
// element type (for ulp distances) and the named coordinates of an element
// (for mismatch reports). The batch is the outermost dimension of every
// batched buffer, so a sequence's output is one contiguous slice.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/check/bitwise_compare.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

// One layout per output buffer of PROBLEM, in buffers() order. Operations the
// checks do not know get a flat f32 layout (or f16 when the size is odd in words).
std::vector<OutputLayout> output_layouts(const std::string& operation, const nlohmann::json& fields,
                                         const Problem& problem);

}  // namespace attn

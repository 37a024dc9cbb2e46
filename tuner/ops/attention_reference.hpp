// The attention operation's definition: one output row in double precision.
#pragma once

#include <vector>

#include "tuner/ops/attention_shape.hpp"

namespace attn {

// The inputs as float values (f16/bf16 already widened exactly).
struct AttentionValues {
  std::vector<float> q, k, v, mask, sinks;
};

// Writes row (b, h, i) of the output, D values, computed in double as
// kernels/common/attn_params.h defines it.
void attention_reference_row(const AttentionShape& shape, const AttentionValues& in, int b, int h, int i,
                             double* out);

}  // namespace attn

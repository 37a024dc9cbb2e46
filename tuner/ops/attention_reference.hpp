// The attention operation's definition: one output row in double precision.
#pragma once

#include <vector>

#include "tuner/ops/attention_shape.hpp"

namespace attn {

// The inputs as float values (f16/bf16 already widened exactly); the mask as
// the shape's mask_layout lays it out (mask_index).
struct AttentionValues {
  std::vector<float> q, k, v, mask, sinks;
};

// One sequence's query and key counts when they are not the shape's Nq and
// Nkv (variable-length thd); 0: the shape's.
struct SequenceLengths {
  int q = 0, k = 0;
};

// Writes row (b, h, i) of the output, D values, computed in double as
// kernels/common/attn_params.h defines it. IN holds [B][H][N][D] arrays of the
// shape's Nq and Nkv; a shorter sequence uses the first rows of its block.
void attention_reference_row(const AttentionShape& shape, const AttentionValues& in, int b, int h, int i, double* out,
                             SequenceLengths lengths = {});

}  // namespace attn

// The multihead_attention operation's definition: one head's output row in
// double precision (kernels/common/multihead_params.h).
#pragma once

#include "tuner/ops/multihead_shape.hpp"

namespace attn {

// Writes d_k values: row i of head `head`, from q, k, v laid out [N][d_model].
void multihead_reference_row(const MultiheadShape& shape, const float* q, const float* k, const float* v, int head, int i,
                             double* out);

}  // namespace attn

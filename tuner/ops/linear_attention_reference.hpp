// The linear_attention operation's definition, in double precision
// (kernels/common/linear_attention_params.h): the state S = phi(K)^T V and
// z = sum_j phi(k_j) over all rows, then each output row from them.
#pragma once

#include <vector>

#include "tuner/ops/linear_attention_shape.hpp"

namespace attn {

// elu(x) + 1.
double linear_attention_phi(double x);

struct LinearAttentionState {
  int d = 0;
  std::vector<double> S;  // [d][d]: S[a][c] = sum_j phi(k_j[a]) v_j[c]
  std::vector<double> z;  // [d]:    z[a]    = sum_j phi(k_j[a])
};

// k and v laid out [M][d].
LinearAttentionState linear_attention_state(const LinearAttentionShape& shape, const float* k, const float* v);

// Writes the d values of output row i.
void linear_attention_reference_row(const LinearAttentionState& state, const float* q, int i, double* out);

}  // namespace attn

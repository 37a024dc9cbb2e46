#include "tuner/ops/linear_attention_reference.hpp"

#include <cmath>

#include "tuner/core/parallel_for.hpp"

namespace attn {

double linear_attention_phi(double x) { return x > 0 ? x + 1 : std::exp(x); }

LinearAttentionState linear_attention_state(const LinearAttentionShape& s, const float* k, const float* v) {
  const int d = s.d;
  LinearAttentionState st;
  st.d = d;
  st.S.assign(std::size_t(d) * d, 0.0);
  st.z.assign(d, 0.0);
  // One feature a per task: its row of S and its z, summed over all rows j in order.
  parallel_for(std::size_t(d), [&](std::size_t a) {
    double* S_a = st.S.data() + a * d;
    double z_a = 0;
    for (int j = 0; j < s.M; ++j) {
      const double phi_k = linear_attention_phi(k[std::size_t(j) * d + a]);
      const float* v_j = v + std::size_t(j) * d;
      z_a += phi_k;
      for (int c = 0; c < d; ++c) S_a[c] += phi_k * double(v_j[c]);
    }
    st.z[a] = z_a;
  });
  return st;
}

void linear_attention_reference_row(const LinearAttentionState& st, const float* q, int i, double* out) {
  const int d = st.d;
  const float* q_i = q + std::size_t(i) * d;
  double denominator = 0;
  for (int c = 0; c < d; ++c) out[c] = 0;
  for (int a = 0; a < d; ++a) {
    const double phi_q = linear_attention_phi(q_i[a]);
    denominator += phi_q * st.z[a];
    const double* S_a = st.S.data() + std::size_t(a) * d;
    for (int c = 0; c < d; ++c) out[c] += phi_q * S_a[c];
  }
  for (int c = 0; c < d; ++c) out[c] /= denominator;
}

}  // namespace attn

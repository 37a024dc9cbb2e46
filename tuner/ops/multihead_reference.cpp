#include "tuner/ops/multihead_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {

void multihead_reference_row(const MultiheadShape& s, const float* q, const float* k, const float* v, int head, int i,
                             double* out) {
  const int d_k = s.d_k(), col0 = head * d_k;
  const float* qi = q + std::size_t(i) * s.d_model + col0;
  const int first = s.first_key(i), last = s.last_key(i);

  std::vector<double> score(last - first + 1);
  double m = -INFINITY;
  for (int j = first; j <= last; ++j) {
    const float* kj = k + std::size_t(j) * s.d_model + col0;
    double dot = 0;
    for (int c = 0; c < d_k; ++c) dot += double(qi[c]) * double(kj[c]);
    score[j - first] = s.scale * dot;
    m = std::max(m, score[j - first]);
  }
  std::fill(out, out + d_k, 0.0);
  double denominator = 0;
  for (int j = first; j <= last; ++j) {
    const double p = std::exp(score[j - first] - m);
    denominator += p;
    const float* vj = v + std::size_t(j) * s.d_model + col0;
    for (int c = 0; c < d_k; ++c) out[c] += p * double(vj[c]);
  }
  for (int c = 0; c < d_k; ++c) out[c] /= denominator;
}

}  // namespace attn

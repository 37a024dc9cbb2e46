#include "tuner/ops/attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

void attention_reference_row(const AttentionShape& s, const AttentionValues& in, int b, int h, int i, double* out,
                             SequenceLengths lengths) {
  const int D = s.D;
  const int hk = h / (s.Hq / s.Hkv);
  const int nq = lengths.q > 0 ? lengths.q : s.Nq, nk = lengths.k > 0 ? lengths.k : s.Nkv;
  const int pos = nk - nq + i;
  const float* q = in.q.data() + ((std::size_t(b) * s.Hq + h) * s.Nq + i) * D;
  const float* k = in.k.data() + (std::size_t(b) * s.Hkv + hk) * s.Nkv * D;
  const float* v = in.v.data() + (std::size_t(b) * s.Hkv + hk) * s.Nkv * D;
  const float* mask = s.mask ? in.mask.data() + s.mask_index(b, h, i, 0) : nullptr;
  const double slope = s.alibi_slope(h);
  const bool mask_scaled = s.alibi_mode == AlibiMode::MaskScaled;

  const int first = s.first_key(i, nq, nk), last = s.last_key(i, nq, nk);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  std::vector<double> score(std::max(0, last - first + 1), neg_inf);
  double m = s.sinks ? double(in.sinks[h]) : neg_inf;
  for (int j = first; j <= last; ++j) {
    double dot = 0;
    for (int d = 0; d < D; ++d) dot += double(q[d]) * double(k[std::size_t(j) * D + d]);
    // Soft-capped first, then the mask and ALiBi (llama.cpp's and Gemma 2's order).
    double x = s.scale * dot;
    if (s.softcap > 0) x = s.softcap * std::tanh(x / s.softcap);
    if (mask_scaled) {
      if (mask) x += slope * double(mask[j]);  // -inf stays -inf: slope > 0
    } else {
      x -= slope * std::abs(pos - j);
      if (mask) x += double(mask[j]);
    }
    score[j - first] = x;
    m = std::max(m, x);
  }
  std::fill(out, out + D, 0.0);
  if (m == neg_inf) return;  // nothing attended: defined as zeros (tests never build such rows)
  double denominator = s.sinks ? std::exp(double(in.sinks[h]) - m) : 0.0;
  for (int j = first; j <= last; ++j) {
    const double x = score[j - first];
    if (x == neg_inf) continue;
    const double p = std::exp(x - m);
    denominator += p;
    for (int d = 0; d < D; ++d) out[d] += p * double(v[std::size_t(j) * D + d]);
  }
  for (int d = 0; d < D; ++d) out[d] /= denominator;
}

}  // namespace attn

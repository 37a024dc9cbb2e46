#include "tuner/ops/deformable_reference.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

double bilinear_zero_padded(const float* map, int h, int w, long long stride, double y, double x) {
  const double y0 = std::floor(y), x0 = std::floor(x);
  const double ly = y - y0, lx = x - x0;
  auto at = [&](double yy, double xx) -> double {
    if (yy < 0 || xx < 0 || yy >= h || xx >= w) return 0.0;
    return map[((long long)yy * w + (long long)xx) * stride];
  };
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) + ly * (1 - lx) * at(y0 + 1, x0) +
         ly * lx * at(y0 + 1, x0 + 1);
}

void deformable_reference_query(const DeformableShape& s, const DeformableValues& in, int b, int q, double* out) {
  const int H = s.heads, C = s.channels, L = s.levels, P = s.points;
  const long long S = s.values_per_image();
  std::fill(out, out + std::size_t(H) * C, 0.0);
  for (int h = 0; h < H; ++h) {
    const std::size_t sample0 = ((std::size_t(b) * s.Nq + q) * H + h) * L * P;
    for (int l = 0; l < L; ++l) {
      const int hl = s.level_h[l], wl = s.level_w[l];
      // value[b][level_start + pixel][h][c]: channel c of head h, pixel stride H*C.
      const float* map = in.value.data() + ((std::size_t(b) * S + s.level_start(l)) * H + h) * C;
      for (int p = 0; p < P; ++p) {
        const std::size_t i = sample0 + std::size_t(l) * P + p;
        const double x = double(in.loc[2 * i]) * wl - 0.5, y = double(in.loc[2 * i + 1]) * hl - 0.5;
        const double a = in.attn[i];
        for (int c = 0; c < C; ++c) out[h * C + c] += a * bilinear_zero_padded(map + c, hl, wl, (long long)H * C, y, x);
      }
    }
  }
}

}  // namespace attn

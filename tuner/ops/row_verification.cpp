#include "tuner/ops/row_verification.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "tuner/core/rng.hpp"

namespace attn {

std::vector<std::size_t> sample_rows(std::size_t total, std::size_t limit, std::uint64_t seed,
                                     const std::vector<std::size_t>& always) {
  std::vector<std::size_t> rows;
  if (total <= limit) {
    for (std::size_t r = 0; r < total; ++r) rows.push_back(r);
    return rows;
  }
  std::set<std::size_t> pick;
  for (std::size_t r : always)
    if (r < total) pick.insert(r);
  UniformStream rr(stream_seed(seed, "rows", 0));
  while (pick.size() < limit) pick.insert(rr.bits() % total);
  rows.assign(pick.begin(), pick.end());
  return rows;
}

VerifyReport verify_float_rows(const std::vector<std::byte>& output, const FloatRowLayout& layout,
                               const std::vector<std::size_t>& rows, const std::vector<double>& reference,
                               const Tolerance& tol) {
  const std::size_t n = output.size() / sizeof(float);
  std::vector<float> out(n);
  std::memcpy(out.data(), output.data(), n * sizeof(float));

  VerifyReport r;
  r.rows_total = static_cast<long long>(layout.rows);
  const NonFinite bad = find_nonfinite(n, [&](std::size_t e) { return std::isfinite(out[e]); });
  r.nonfinite = bad.count;
  if (bad.count > 0) r.worst = fmt::format("{} = {} (not written, or not finite)", layout.name(bad.first), out[bad.first]);

  double err2 = 0, ref2 = 0, worst_abs = -1;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (int c = 0; c < layout.row_length; ++c) {
      const std::size_t e = layout.element(rows[i], c);
      const double want = reference[i * layout.row_length + c];
      const double got = out[e];
      if (!std::isfinite(got)) continue;  // counted above
      const double diff = std::abs(got - want);
      err2 += diff * diff;
      ref2 += want * want;
      if (diff > worst_abs) {
        worst_abs = diff;
        if (r.nonfinite == 0)
          r.worst = fmt::format("{} = {:.{}g}, expected {:.{}g}", layout.name(e), got, layout.digits, want, layout.digits);
      }
    }
  }
  r.rows_checked = static_cast<long long>(rows.size());
  r.max_abs = std::max(0.0, worst_abs);
  r.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  r.passed = r.nonfinite == 0 && r.rel_l2 <= tol.rel_l2 && r.max_abs <= tol.max_abs;
  return r;
}

std::vector<std::byte> float_nan_poison() {
  const std::uint32_t nan = 0x7fc00000u;
  std::vector<std::byte> word(4);
  std::memcpy(word.data(), &nan, 4);
  return word;
}

std::vector<std::byte> float_bytes(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace attn

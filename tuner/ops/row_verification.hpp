// Verification by rows, shared by the operations: which rows a large problem
// checks against its double reference, and (for float outputs) the check
// itself: every element must be finite (unwritten ones keep the NaN poison),
// and the checked rows must meet the tolerance.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tuner/core/parallel_for.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

// A float output buffer and how its logical rows map onto it.
struct FloatRowLayout {
  std::size_t rows = 0;  // logical rows
  int row_length = 0;    // values per row
  // Element index (into the float buffer) of value c of logical row r.
  std::function<std::size_t(std::size_t r, int c)> element;
  // "o[i=3,c=7]": how a report names an element.
  std::function<std::string(std::size_t element)> name;
  int digits = 8;  // significant digits of the values a report prints
};

// The rows verified: all of them when there are at most LIMIT, else ALWAYS
// plus rows drawn from SEED until there are LIMIT, in increasing order.
std::vector<std::size_t> sample_rows(std::size_t total, std::size_t limit, std::uint64_t seed,
                                     const std::vector<std::size_t>& always);

// How many of N elements are not finite, and the first of them: unwritten elements keep the NaN poison.
struct NonFinite {
  long long count = 0;
  std::size_t first = 0;  // valid when count > 0
};

// Scans elements 0..N-1 with IS_FINITE(e) in parallel (an output of 24M elements took tens of ms on one
// thread, once per run verified), in fixed chunks, so the answer does not depend on the thread count.
template <class IsFinite>
NonFinite find_nonfinite(std::size_t n, IsFinite&& is_finite) {
  constexpr std::size_t kChunks = 64;
  std::vector<NonFinite> part(kChunks);
  const std::size_t step = (n + kChunks - 1) / kChunks;
  parallel_for(n < (1u << 16) ? 1 : kChunks, [&](std::size_t c) {
    const std::size_t begin = n < (1u << 16) ? 0 : c * step, end = n < (1u << 16) ? n : std::min(n, begin + step);
    for (std::size_t e = begin; e < end; ++e)
      if (!is_finite(e) && part[c].count++ == 0) part[c].first = e;
  });
  NonFinite all;
  for (const NonFinite& p : part)
    if (p.count > 0) {
      if (all.count == 0) all.first = p.first;
      all.count += p.count;
    }
  return all;
}

// REFERENCE holds layout.row_length values per entry of ROWS.
VerifyReport verify_float_rows(const std::vector<std::byte>& output, const FloatRowLayout& layout,
                               const std::vector<std::size_t>& rows, const std::vector<double>& reference,
                               const Tolerance& tol);

// One float NaN, the poison repeated over float outputs before every run.
std::vector<std::byte> float_nan_poison();

// A float buffer's bytes.
std::vector<std::byte> float_bytes(const std::vector<float>& values);

}  // namespace attn

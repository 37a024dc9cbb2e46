// Verification by rows (ops/row_verification.hpp): the non-finite scan, which runs in parallel chunks, counts
// every unwritten element and names the first one whatever the thread count; a wrong value in a checked row
// fails the tolerance and is the one named.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

TEST(RowVerification, TheParallelScanCountsEveryNonFiniteElementAndFindsTheFirst) {
  const std::size_t n = 3'000'017;  // many chunks, the last one short
  std::vector<float> out(n, 1.0f);
  for (std::size_t e : {std::size_t(123'457), std::size_t(123'458), std::size_t(2'900'000), n - 1})
    out[e] = std::numeric_limits<float>::quiet_NaN();
  out[1'500'000] = std::numeric_limits<float>::infinity();
  const NonFinite bad = find_nonfinite(n, [&](std::size_t e) { return std::isfinite(out[e]); });
  EXPECT_EQ(bad.count, 5);
  EXPECT_EQ(bad.first, 123'457u);
  EXPECT_EQ(find_nonfinite(10, [](std::size_t e) { return e != 7; }).first, 7u);  // a small output, one pass
  EXPECT_EQ(find_nonfinite(n, [](std::size_t) { return true; }).count, 0);
}

TEST(RowVerification, AnUnwrittenElementFailsAndIsNamedAndAWrongValueIsTheWorst) {
  const FloatRowLayout layout{4, 3, [](std::size_t r, int c) { return r * 3 + std::size_t(c); },
                              [](std::size_t e) { return "o[" + std::to_string(e) + "]"; }};
  std::vector<float> out = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> ref(out.begin(), out.end());
  const std::vector<std::size_t> rows = {0, 1, 2, 3};
  EXPECT_TRUE(verify_float_rows(float_bytes(out), layout, rows, ref, Tolerance{}).passed);

  out[7] = 8.5f;
  const VerifyReport wrong = verify_float_rows(float_bytes(out), layout, rows, ref, Tolerance{});
  EXPECT_FALSE(wrong.passed);
  EXPECT_NEAR(wrong.max_abs, 0.5, 1e-9);
  EXPECT_NE(wrong.worst.find("o[7] = 8.5"), std::string::npos) << wrong.worst;

  out[10] = std::numeric_limits<float>::quiet_NaN();
  const VerifyReport unwritten = verify_float_rows(float_bytes(out), layout, rows, ref, Tolerance{});
  EXPECT_FALSE(unwritten.passed);
  EXPECT_EQ(unwritten.nonfinite, 1);
  EXPECT_NE(unwritten.worst.find("o[10] = nan (not written"), std::string::npos) << unwritten.worst;
}

}  // namespace
}  // namespace attn

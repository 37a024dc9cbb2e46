// The FMA-pipe 2^x of kernels/cuda/exp2_poly.cuh (the softmax exponentials of
// flash_attn_fwd_ws.cu with EXP_POLY), compiled here by the host compiler: the
// same polynomial, clamp and exponent arithmetic the kernel runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cuda/exp2_poly.cuh"

namespace {

unsigned bits(float x) {
  unsigned u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The largest |poly / 2^x - 1| over x in [-126, 1): 2^12 points per unit interval, every float of [-2, -1.5], and
// -2^-k, the tiny inputs whose fraction 1 - 2^-k rounds to 1.
template <int DEG>
double worst_relative_error() {
  double worst = 0;
  auto check = [&](float x) {
    const double exact = std::exp2(static_cast<double>(x));
    worst = std::max(worst, std::fabs(exp2_poly::exp2<DEG>(x) / exact - 1));
  };
  for (int k = -126; k < 1; ++k)
    for (int i = 0; i < 4096; ++i) check(static_cast<float>(k) + static_cast<float>(i) / 4096.0f);
  for (float x = -2.0f; x <= -1.5f; x = std::nextafter(x, 0.0f)) check(x);
  for (int k = 1; k <= 149; ++k) check(-std::ldexp(1.0f, -k));
  return worst;
}

// Half an ulp relative to the value: the worst rounding of a probability to fp16 / bf16.
constexpr double kFp16Rounding = 0x1p-11;
constexpr double kBf16Rounding = 0x1p-8;

TEST(Exp2Poly, DegreeThreeIsWithin8Point7eMinus5OfExp2AndFortyTimesBelowBf16Rounding) {
  const double e = worst_relative_error<3>();
  EXPECT_LT(e, 8.7e-5);
  EXPECT_LT(e * 40, kBf16Rounding);
}

TEST(Exp2Poly, DegreeFourIsWithin3Point1eMinus6OfExp2AndOneHundredFiftyTimesBelowFp16Rounding) {
  const double e = worst_relative_error<4>();
  EXPECT_LT(e, 3.1e-6);
  EXPECT_LT(e * 150, kFp16Rounding);
}

TEST(Exp2Poly, MinusInfinityAndEverythingAtOrBelowMinus127GiveExactlyZero) {
  for (float x :
       {-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::max(), -1e30f, -1000.0f, -128.0f, -127.0f}) {
    EXPECT_EQ(bits(exp2_poly::exp2<3>(x)), 0u) << x;
    EXPECT_EQ(bits(exp2_poly::exp2<4>(x)), 0u) << x;
  }
}

TEST(Exp2Poly, InputsBetweenMinus127AndMinus126GiveANonNegativeNumberBelowTheSmallestNormal) {
  for (float x = -127.0f; x < -126.0f; x += 1.0f / 1024) {
    for (float y : {exp2_poly::exp2<3>(x), exp2_poly::exp2<4>(x)}) {
      EXPECT_FALSE(std::isnan(y)) << x;
      EXPECT_GE(y, 0.0f) << x;
      EXPECT_LT(y, std::numeric_limits<float>::min()) << x;
      EXPECT_LE(std::fabs(y - std::exp2(static_cast<double>(x))), 0x1p-127) << x;
    }
  }
}

TEST(Exp2Poly, IntegersGiveExactPowersOfTwo) {
  for (int k = -126; k <= 20; ++k) {
    EXPECT_EQ(exp2_poly::exp2<3>(static_cast<float>(k)), std::ldexp(1.0f, k)) << k;
    EXPECT_EQ(exp2_poly::exp2<4>(static_cast<float>(k)), std::ldexp(1.0f, k)) << k;
  }
  EXPECT_EQ(exp2_poly::exp2<4>(-0.0f), 1.0f);
}

// The softmax's fma(s, scale, -max) can land a rounding error above 0.
TEST(Exp2Poly, InputsJustAboveZeroStayWithinTheBoundOfOne) {
  for (float x : {1e-7f, 1e-5f, 1e-3f}) {
    EXPECT_NEAR(exp2_poly::exp2<3>(x), std::exp2(x), 9e-5 * std::exp2(x));
    EXPECT_NEAR(exp2_poly::exp2<4>(x), std::exp2(x), 3.1e-6 * std::exp2(x));
  }
}

// The device adds 1.5 * 2^23 rounded toward -inf (__fadd_rd); the host path writes floor(x) + 1.5 * 2^23.
// They agree: the sum lies in [2^23, 2^24), where floats are the integers.
TEST(Exp2Poly, TheRoundedDownShiftHoldsTheFloorAsTheHostPathComputesIt) {
  const int mode = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  bool same = true;
  for (float x = -127.0f; x < 2.0f && same; x += 0.0078125f * 1.37f) {
    volatile float a = x, b = exp2_poly::kFloorShift;
    const float down = a + b;
    same = down == exp2_poly::floor_shifted(x);
  }
  std::fesetround(mode);
  EXPECT_TRUE(same);
}

}  // namespace

#include <gtest/gtest.h>

#include "tuner/record/stats.hpp"

namespace attn {
namespace {

TEST(SampleStats, QuartilesMedianAndNoise) {
  const SampleStats s = SampleStats::of({5, 1, 4, 2, 3});
  EXPECT_EQ(s.samples, 5);
  EXPECT_DOUBLE_EQ(s.median_ms, 3);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 5);
  EXPECT_DOUBLE_EQ(s.q1_ms, 2);
  EXPECT_DOUBLE_EQ(s.q3_ms, 4);
  EXPECT_DOUBLE_EQ(s.mean_ms, 3);
  // sample standard deviation of 1..5 is sqrt(2.5)
  EXPECT_NEAR(s.rel_noise, std::sqrt(2.5) / 3, 1e-12);
}

TEST(SampleStats, IdenticalSamplesHaveNoNoise) {
  EXPECT_DOUBLE_EQ(relative_stddev({2, 2, 2, 2}), 0);
  EXPECT_DOUBLE_EQ(relative_stddev({2}), 0);
}

TEST(SampleStats, RoundTripsThroughJson) {
  SampleStats s = SampleStats::of({1.5, 2.5, 2.0});
  s.converged = true;
  const SampleStats back = SampleStats::from_json(s.to_json());
  EXPECT_EQ(back.samples, 3);
  EXPECT_DOUBLE_EQ(back.median_ms, 2.0);
  EXPECT_TRUE(back.converged);
}

}  // namespace
}  // namespace attn

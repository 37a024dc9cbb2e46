// The surrogate's regressor and its acquisition function.
#include <gtest/gtest.h>

#include "tuner/search/extra_trees.hpp"
#include "tuner/search/surrogate.hpp"

namespace attn {
namespace {

TEST(ExtraTrees, LearnsAStepInOneFeatureAndIgnoresANoiseFeature) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      x.push_back({static_cast<double>(a), static_cast<double>(b)});
      y.push_back(a < 4 ? 1.0 : 3.0);
    }
  ExtraTrees model(16, 1);
  UniformStream rng(1);
  model.fit(x, y, rng);
  EXPECT_NEAR(model.predict({1, 6}).mean, 1.0, 1e-9);
  EXPECT_NEAR(model.predict({6, 1}).mean, 3.0, 1e-9);
  EXPECT_NEAR(model.predict({6, 1}).stddev, 0.0, 1e-9);
}

TEST(ExtraTrees, IsUncertainBetweenTrainingPointsThatDisagree) {
  const std::vector<std::vector<double>> x{{0}, {10}};
  const std::vector<double> y{0, 10};
  ExtraTrees model(32, 1);
  UniformStream rng(2);
  model.fit(x, y, rng);
  const auto middle = model.predict({5});
  EXPECT_GT(middle.stddev, 1.0);
  EXPECT_GT(middle.mean, 0.0);
  EXPECT_LT(middle.mean, 10.0);
}

TEST(ExpectedImprovement, GrowsWithTheUncertaintyAndWithThePredictedGain) {
  EXPECT_DOUBLE_EQ(expected_improvement(2.0, 0.0, 1.0), 0.0);
  EXPECT_GT(expected_improvement(2.0, 1.0, 1.0), 0.0);
  EXPECT_GT(expected_improvement(2.0, 2.0, 1.0), expected_improvement(2.0, 1.0, 1.0));
  EXPECT_GT(expected_improvement(0.5, 0.1, 1.0), expected_improvement(0.9, 0.1, 1.0));
}

}  // namespace
}  // namespace attn

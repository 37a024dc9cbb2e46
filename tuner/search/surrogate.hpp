// Model-based search: after a random initial design, an extra-trees surrogate
// of log(time) over the parameters' value positions picks, among sampled
// candidates and the best configurations' neighbours, the one with the largest
// expected improvement. Failed configurations are modelled as slow.
#pragma once

#include "tuner/search/extra_trees.hpp"
#include "tuner/search/strategy.hpp"

namespace attn {

class SurrogateSearch final : public Strategy {
 public:
  SurrogateSearch(const SpaceSampler& space, std::uint64_t seed);

  static constexpr std::size_t kInitialDesign = 10;
  static constexpr std::size_t kSampledCandidates = 384;
  static constexpr long long kEnumerateUpTo = 4096;  // smaller products: every valid configuration is a candidate

 private:
  std::optional<Config> next() override;
  std::vector<double> features(const Config& config) const;
  std::vector<Config> candidates();

  ExtraTrees model_{32, 1};
  std::vector<Config> all_valid_;  // when the product is small enough to list
};

// Expected improvement below BEST of a normal prediction (minimisation).
double expected_improvement(double mean, double stddev, double best);

}  // namespace attn

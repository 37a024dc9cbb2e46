// Model-based search: after a random initial design, an extra-trees surrogate
// of log(time) over the parameters (log2 of a positive value, else its position
// in its list) picks, among the candidates (every valid configuration of a small
// enough product, else sampled ones and the best configurations' neighbours),
// the one with the largest expected improvement. Failed configurations are
// modelled as slow.
#pragma once

#include "tuner/search/extra_trees.hpp"
#include "tuner/search/strategy.hpp"

namespace attn {

class SurrogateSearch final : public Strategy {
 public:
  SurrogateSearch(const SpaceSampler& space, std::uint64_t seed);

  // Few random configurations before the model leads: on the recorded spaces 4 needed fewer
  // evaluations to within 3% than 10 (results/search/README.md).
  static constexpr std::size_t kInitialDesign = 4;
  static constexpr std::size_t kSampledCandidates = 384;
  // Smaller products: every valid configuration is a candidate (listing 65,536 points takes a
  // fraction of a second; sampled candidates missed the few best of a 2,016-configuration space).
  static constexpr long long kEnumerateUpTo = 65536;

 private:
  std::optional<Config> next() override;
  std::vector<double> features(const Config& config) const;
  std::vector<Config> candidates();

  ExtraTrees model_{32, 1};
  std::vector<Config> all_valid_;  // when the product is small enough to list
  bool listed_ = false;
};

// Expected improvement below BEST of a normal prediction (minimisation).
double expected_improvement(double mean, double stddev, double best);

}  // namespace attn

// `portfolio`: the memetic arm of `hybrid` and the multi-start local search
// arm in turns (slice_rule.hpp), over one record of proposed configurations,
// so neither evaluates what the other did. Each is the better one on a
// different kind of space (docs/search.md): recombination where the best
// basins are broad, descents from fresh starts where the best is a needle.
#pragma once

#include <deque>

#include "tuner/search/local_arm.hpp"
#include "tuner/search/memetic_arm.hpp"
#include "tuner/search/slice_rule.hpp"

namespace attn {

class PortfolioSearch final : public ArmedStrategy {
 public:
  PortfolioSearch(const SpaceSampler& space, std::uint64_t seed);

  // Measured at 10, 25, 50 and 100 on the public spaces (docs/search.md): shorter slices starve
  // the memetic arm on A100 convolution and gemm.
  static constexpr long long kSlice = 100;

  const SliceRule& rule() const { return rule_; }
  // Evaluations each arm proposed: memetic, local.
  long long proposed_by(std::size_t arm) const { return proposed_by_[arm]; }

 private:
  std::optional<Config> next() override;
  void observed(const Observation& observation) override;
  SearchArm& arm(std::size_t i) { return i == 0 ? static_cast<SearchArm&>(memetic_) : local_; }

  MemeticArm memetic_;
  LocalArm local_;
  SliceRule rule_;
  std::deque<std::size_t> pending_;  // the arm of each proposal not yet told, oldest first
  long long proposed_by_[2] = {0, 0};
  Cost best_;
};

}  // namespace attn

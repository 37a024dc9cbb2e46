#include "tuner/search/portfolio.hpp"

namespace attn {

PortfolioSearch::PortfolioSearch(const SpaceSampler& space, std::uint64_t seed)
    : ArmedStrategy(space, seed), rule_(2, kSlice, true) {}

std::optional<Config> PortfolioSearch::next() {
  for (int tries = 0; tries < 2; ++tries) {
    const std::size_t a = rule_.current();
    if (std::optional<Config> c = arm(a).next(*this)) {
      pending_.push_back(a);
      ++proposed_by_[a];
      return c;
    }
    rule_.skip();
  }
  return std::nullopt;
}

void PortfolioSearch::observed(const Observation& observation) {
  const std::size_t owner = pending_.empty() ? rule_.current() : pending_.front();
  if (!pending_.empty()) pending_.pop_front();
  const bool improved = better(observation.cost, best_);
  if (improved) best_ = observation.cost;
  for (std::size_t i = 0; i < 2; ++i) arm(i).observed(*this, observation, i == owner);
  if (owner == rule_.current()) rule_.told(improved);
}

}  // namespace attn

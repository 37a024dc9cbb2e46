// A steady-state genetic algorithm: a population of the best configurations
// told so far; each child is a uniform crossover of two tournament winners,
// mutated one value step at a time, and joins the population when it beats
// the worst member. Children that break a constraint are drawn again; after
// too many tries a random configuration joins instead (an immigrant).
#pragma once

#include "tuner/search/strategy.hpp"

namespace attn {

class GeneticSearch final : public Strategy {
 public:
  using Strategy::Strategy;

  static constexpr std::size_t kPopulation = 12;

 private:
  std::optional<Config> next() override;
  void observed(const Observation& observation) override;

  std::vector<Observation> population_;
  std::size_t pending_ = 0;  // proposed but not yet told
};

}  // namespace attn

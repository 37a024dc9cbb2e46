#include "tuner/search/genetic.hpp"

#include <algorithm>

#include "tuner/search/crossover.hpp"

namespace attn {

std::optional<Config> GeneticSearch::next() {
  std::optional<Config> c;
  if (population_.size() + pending_ >= kPopulation)
    c = crossover_child(population_, space_, rng_, [&](const Config& x) { return proposed(x); });
  if (!c) c = random_unproposed();
  if (c) ++pending_;
  return c;
}

void GeneticSearch::observed(const Observation& observation) {
  if (pending_ > 0) --pending_;
  population_.push_back(observation);
  // Best first, failures last; stable, so ties keep the order they were told in.
  std::stable_sort(population_.begin(), population_.end(),
                   [](const Observation& a, const Observation& b) { return better(a.cost, b.cost); });
  if (population_.size() > kPopulation) population_.pop_back();
}

}  // namespace attn

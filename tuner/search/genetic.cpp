#include "tuner/search/genetic.hpp"

#include <algorithm>

namespace attn {
namespace {

constexpr int kChildTries = 64;

}  // namespace

std::optional<Config> GeneticSearch::next() {
  std::optional<Config> c;
  if (population_.size() + pending_ >= kPopulation) c = child();
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

const Observation& GeneticSearch::tournament() {
  const Observation& a = population_[uniform_index(rng_, population_.size())];
  const Observation& b = population_[uniform_index(rng_, population_.size())];
  return better(b.cost, a.cost) ? b : a;
}

std::optional<Config> GeneticSearch::child() {
  if (population_.size() < 2) return std::nullopt;
  const auto& params = space_.params();
  const double mutation = 1.0 / static_cast<double>(std::max<std::size_t>(params.size(), 1));
  for (int attempt = 0; attempt < kChildTries; ++attempt) {
    const auto a = space_.positions(tournament().config);
    const auto b = space_.positions(tournament().config);
    if (!a || !b) return std::nullopt;
    std::vector<std::size_t> pos = *a;
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (rng_.bits() & 1u) pos[p] = (*b)[p];
      if (rng_.next(0.0, 1.0) >= mutation) continue;
      const std::size_t n = params[p].second.size();
      if (n < 2) continue;
      // One value step up or down; a random value one time in four, to jump.
      if (rng_.next(0.0, 1.0) < 0.25) pos[p] = uniform_index(rng_, n);
      else if (pos[p] == 0) pos[p] = 1;
      else if (pos[p] + 1 == n) pos[p] = n - 2;
      else pos[p] = (rng_.bits() & 1u) ? pos[p] + 1 : pos[p] - 1;
    }
    Config c = space_.from_positions(pos);
    if (!proposed(c) && space_.valid(c)) return c;
  }
  return std::nullopt;
}

}  // namespace attn

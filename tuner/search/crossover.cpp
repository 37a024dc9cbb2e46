#include "tuner/search/crossover.hpp"

#include <algorithm>

namespace attn {
namespace {

constexpr int kChildTries = 64;

const Observation& tournament(const std::vector<Observation>& population, UniformStream& rng) {
  const Observation& a = population[uniform_index(rng, population.size())];
  const Observation& b = population[uniform_index(rng, population.size())];
  return better(b.cost, a.cost) ? b : a;
}

}  // namespace

std::optional<Config> crossover_child(const std::vector<Observation>& population, const SpaceSampler& space,
                                      UniformStream& rng, const std::function<bool(const Config&)>& proposed) {
  if (population.size() < 2) return std::nullopt;
  const auto& params = space.params();
  const double mutation = 1.0 / static_cast<double>(std::max<std::size_t>(params.size(), 1));
  for (int attempt = 0; attempt < kChildTries; ++attempt) {
    const auto a = space.positions(tournament(population, rng).config);
    const auto b = space.positions(tournament(population, rng).config);
    if (!a || !b) return std::nullopt;
    std::vector<std::size_t> pos = *a;
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (rng.bits() & 1u) pos[p] = (*b)[p];
      if (rng.next(0.0, 1.0) >= mutation) continue;
      const std::size_t n = params[p].second.size();
      if (n < 2) continue;
      // One value step up or down; a random value one time in four, to jump.
      if (rng.next(0.0, 1.0) < 0.25) pos[p] = uniform_index(rng, n);
      else if (pos[p] == 0) pos[p] = 1;
      else if (pos[p] + 1 == n) pos[p] = n - 2;
      else pos[p] = (rng.bits() & 1u) ? pos[p] + 1 : pos[p] - 1;
    }
    Config c = space.from_positions(pos);
    if (!proposed(c) && space.valid(c)) return c;
  }
  return std::nullopt;
}

}  // namespace attn

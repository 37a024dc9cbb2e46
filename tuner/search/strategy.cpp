#include "tuner/search/strategy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/search/annealing.hpp"
#include "tuner/search/exhaustive.hpp"
#include "tuner/search/genetic.hpp"
#include "tuner/search/hybrid.hpp"
#include "tuner/search/portfolio.hpp"
#include "tuner/search/random_search.hpp"
#include "tuner/search/surrogate.hpp"

namespace attn {

Strategy::Strategy(const SpaceSampler& space, std::uint64_t seed) : space_(space), rng_(stream_seed(seed, "search", 0)) {}

std::optional<Config> Strategy::propose() {
  std::optional<Config> c = next();
  if (!c) return std::nullopt;
  if (!proposed_.insert(config_key(*c)).second || !space_.valid(*c))
    throw Error(fmt::format("search strategy proposed {} configuration {}",
                            space_.valid(*c) ? "an already proposed" : "an invalid", config_key(*c)));
  return c;
}

void Strategy::tell(const Config& config, Cost cost) {
  costs_[config_key(config)] = cost;
  history_.push_back({config, cost});
  observed(history_.back());
}

std::optional<Cost> Strategy::told(const Config& config) const {
  const auto it = costs_.find(config_key(config));
  if (it == costs_.end()) return std::nullopt;
  return it->second;
}

std::vector<Config> Strategy::unproposed_neighbours(const Config& config) const {
  std::vector<Config> out = space_.neighbours(config);
  std::erase_if(out, [&](const Config& c) { return proposed(c); });
  return out;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"exhaustive", "random", "annealing", "genetic",
                                              "surrogate",  "hybrid", "portfolio"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const SpaceSampler& space, std::uint64_t seed) {
  if (name == "exhaustive") return std::make_unique<ExhaustiveSearch>(space, seed);
  if (name == "random") return std::make_unique<RandomSearch>(space, seed);
  if (name == "annealing") return std::make_unique<SimulatedAnnealing>(space, seed);
  if (name == "genetic") return std::make_unique<GeneticSearch>(space, seed);
  if (name == "hybrid") return std::make_unique<HybridSearch>(space, seed);
  if (name == "portfolio") return std::make_unique<PortfolioSearch>(space, seed);
  if (name == "surrogate") return std::make_unique<SurrogateSearch>(space, seed);
  throw UsageError(fmt::format("unknown search strategy `{}`; known: {}", name, fmt::join(strategy_names(), ", ")));
}

}  // namespace attn

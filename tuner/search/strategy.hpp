// A search strategy: proposes the next configuration to evaluate given the
// results told so far (ask/tell). Deterministic given its seed and the results
// it is told, so a run is resumed exactly by telling it the journaled results
// again in order. Strategies never propose a configuration twice nor one that
// breaks the space's constraints.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tuner/search/space_sampler.hpp"

namespace attn {

// A configuration's cost to minimise (its median time); nullopt when it failed.
using Cost = std::optional<double>;

struct Observation {
  Config config;
  Cost cost;
};

class Strategy {
 public:
  Strategy(const SpaceSampler& space, std::uint64_t seed);
  virtual ~Strategy() = default;
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  // The next valid configuration not proposed before; nullopt when the strategy has nothing left.
  std::optional<Config> propose();
  // The result of a configuration propose() returned.
  void tell(const Config& config, Cost cost);

  const std::vector<Observation>& history() const { return history_; }

 protected:
  bool proposed(const Config& config) const { return proposed_.contains(config_key(config)); }
  // The told cost of CONFIG; nullopt when it was not told (an inner nullopt: it failed).
  std::optional<Cost> told(const Config& config) const;
  // A valid configuration never proposed, drawn uniformly; nullopt when none is left.
  std::optional<Config> random_unproposed() { return space_.sample_unseen(rng_, proposed_); }
  // CONFIG's neighbours that were never proposed.
  std::vector<Config> unproposed_neighbours(const Config& config) const;

  const SpaceSampler& space_;
  UniformStream rng_;

 private:
  virtual std::optional<Config> next() = 0;
  virtual void observed(const Observation& observation) { (void)observation; }

  std::set<std::string> proposed_;
  std::map<std::string, Cost> costs_;
  std::vector<Observation> history_;
};

// What `sweep --budget-evals/--budget-time` uses without --strategy: on the public
// brute-forced spaces of the strategy benchmark (results/search/table.md) the best
// methodology score on three of four, at a fraction of a millisecond per evaluation
// (`surrogate`, the earlier default, takes 141 ms at 18,000 configurations).
inline constexpr const char* kDefaultSearchStrategy = "hybrid";

// "exhaustive", "random", "annealing", "genetic", "surrogate", "hybrid", "portfolio".
const std::vector<std::string>& strategy_names();
// Throws UsageError naming the known strategies for an unknown NAME.
std::unique_ptr<Strategy> make_strategy(const std::string& name, const SpaceSampler& space, std::uint64_t seed);

// Compares costs with failures last.
inline bool better(const Cost& a, const Cost& b) { return a && (!b || *a < *b); }

}  // namespace attn

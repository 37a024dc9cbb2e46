// Simulated annealing over the space's neighbourhood (valid configurations one
// parameter away): a worse neighbour is accepted with probability
// exp(-log(cost ratio) / T), T cooling geometrically; it restarts from a fresh
// random configuration when the neighbourhood is used up or T has cooled.
#pragma once

#include "tuner/search/strategy.hpp"

namespace attn {

class SimulatedAnnealing final : public Strategy {
 public:
  using Strategy::Strategy;

  static constexpr double kStartTemperature = 0.1;  // a 10% slower neighbour is accepted with p = 1/e at first
  static constexpr double kCooling = 0.97;          // per step
  static constexpr double kEndTemperature = 0.002;  // then restart

 private:
  std::optional<Config> next() override;
  void observed(const Observation& observation) override;
  // One Metropolis step from the current configuration to CANDIDATE.
  void step(const Config& candidate, const Cost& cost);
  std::optional<Config> restart();

  std::optional<Observation> current_;
  bool restarting_ = true;  // the next told result is the new starting point
  double temperature_ = kStartTemperature;
};

}  // namespace attn

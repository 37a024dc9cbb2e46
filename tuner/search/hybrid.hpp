// `hybrid`: the memetic arm alone (memetic_arm.hpp): a few random
// configurations, then a steady-state genetic algorithm whose every new best
// is followed by a local search of its value steps; restarts on stagnation.
#pragma once

#include "tuner/search/memetic_arm.hpp"

namespace attn {

class HybridSearch final : public ArmedStrategy {
 public:
  using ArmedStrategy::ArmedStrategy;
  using Knobs = MemeticArm::Knobs;

  const Knobs& knobs() const { return arm_.knobs(); }
  int restarts() const { return arm_.restarts(); }

 private:
  std::optional<Config> next() override { return arm_.next(*this); }
  void observed(const Observation& observation) override { arm_.observed(*this, observation, true); }

  MemeticArm arm_;
};

}  // namespace attn

// The memetic arm behind `hybrid`: a few random configurations, then a
// steady-state genetic algorithm (as `genetic`) whose every new best is
// followed by a local search around it: its unproposed neighbours one value
// step away in an ordered parameter, in random order. When the best of the
// current epoch has not improved for a while, it restarts: a fresh population
// from new random configurations.
#pragma once

#include "tuner/search/search_arm.hpp"

namespace attn {

class MemeticArm final : public SearchArm {
 public:
  // Measured on the public spaces (docs/search.md): value steps only (the whole one-parameter
  // neighbourhood after them cost A100 convolution 353 evaluations to 3% instead of 160).
  struct Knobs {
    std::size_t initial = 4;      // random configurations at the start of each epoch
    std::size_t population = 12;  // the genetic population
    long long stall = 150;        // own evaluations without a better epoch best before a restart
  };
  MemeticArm() : MemeticArm(Knobs()) {}
  explicit MemeticArm(Knobs knobs) : knobs_(knobs) {}

  std::optional<Config> next(ArmHost& host) override;
  void observed(ArmHost& host, const Observation& observation, bool own) override;

  const Knobs& knobs() const { return knobs_; }
  int restarts() const { return restarts_; }

 private:
  void refill(ArmHost& host, const Config& best);
  void restart();

  Knobs knobs_;
  std::vector<Observation> population_;  // best first
  std::optional<Observation> best_;      // this epoch's
  std::vector<Config> local_;            // neighbours of best_ still to try, the next one last
  long long epoch_told_ = 0;
  long long since_improvement_ = 0;
  std::size_t pending_ = 0;  // proposed but not yet told
  int restarts_ = 0;
};

}  // namespace attn

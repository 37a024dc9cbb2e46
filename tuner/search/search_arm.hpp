// One search method as a part of a strategy: it proposes through the strategy
// that runs it (whose record of proposed configurations it shares) and is told
// every result, its own and its siblings', so a portfolio of arms never
// evaluates a configuration twice.
#pragma once

#include "tuner/search/strategy.hpp"

namespace attn {

// What an arm may ask of the strategy that runs it.
class ArmHost {
 public:
  virtual ~ArmHost() = default;
  virtual const SpaceSampler& space() const = 0;
  virtual UniformStream& rng() = 0;
  virtual bool was_proposed(const Config& config) const = 0;
  virtual std::optional<Config> random_config() = 0;
};

class SearchArm {
 public:
  virtual ~SearchArm() = default;
  // A valid configuration never proposed; nullopt when the arm has none to offer now.
  virtual std::optional<Config> next(ArmHost& host) = 0;
  // OWN: the arm proposed it.
  virtual void observed(ArmHost& host, const Observation& observation, bool own) = 0;
};

// A strategy that runs arms: it is their host.
class ArmedStrategy : public Strategy, protected ArmHost {
 public:
  using Strategy::Strategy;

 protected:
  const SpaceSampler& space() const override { return space_; }
  UniformStream& rng() override { return rng_; }
  bool was_proposed(const Config& config) const override { return proposed(config); }
  std::optional<Config> random_config() override { return random_unproposed(); }
};

}  // namespace attn

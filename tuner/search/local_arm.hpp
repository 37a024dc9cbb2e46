// The multi-start local search arm: from a random configuration, its whole
// one-parameter neighbourhood in random order, moving to the first neighbour
// that is faster; when a point's neighbourhood is used up (a local optimum),
// a fresh random start. Wins where the best lies in a narrow basin next to
// broad, slightly slower ones (W6600 convolution, docs/search.md).
#pragma once

#include "tuner/search/search_arm.hpp"

namespace attn {

class LocalArm final : public SearchArm {
 public:
  std::optional<Config> next(ArmHost& host) override;
  void observed(ArmHost& host, const Observation& observation, bool own) override;

  int starts() const { return starts_; }

 private:
  void move_to(ArmHost& host, const Observation& point);

  std::optional<Observation> point_;  // where the descent stands
  std::vector<Config> queue_;         // point_'s neighbours still to try, the next one last
  bool awaiting_start_ = false;       // a fresh start was proposed and not yet told
  int starts_ = 0;
};

}  // namespace attn

// Valid configurations drawn uniformly without replacement: the baseline every
// other strategy must beat.
#pragma once

#include "tuner/search/strategy.hpp"

namespace attn {

class RandomSearch final : public Strategy {
 public:
  using Strategy::Strategy;

 private:
  std::optional<Config> next() override { return random_unproposed(); }
};

}  // namespace attn

// Every valid configuration in the sweep's order (first parameter slowest).
#pragma once

#include "tuner/search/strategy.hpp"

namespace attn {

class ExhaustiveSearch final : public Strategy {
 public:
  using Strategy::Strategy;

 private:
  std::optional<Config> next() override;
  long long index_ = 0;
};

}  // namespace attn

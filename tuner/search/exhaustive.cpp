#include "tuner/search/exhaustive.hpp"

namespace attn {

std::optional<Config> ExhaustiveSearch::next() {
  for (; index_ < space_.product_size(); ++index_) {
    Config c = space_.at(index_);
    if (space_.valid(c) && !proposed(c)) {
      ++index_;
      return c;
    }
  }
  return std::nullopt;
}

}  // namespace attn

// How many distinct programs a sweep compiled, and how many the on-disk
// compile cache answered instead: "12 compiled, 30 from cache".
#pragma once

#include <string>
#include <vector>

#include "tuner/record/result.hpp"

namespace attn {

struct CompileCounts {
  int compiled = 0;
  int from_cache = 0;

  std::string summary() const;  // "N compiled, M from cache"
};

// One count per distinct (kernel, -D options) among RESULTS that got as far as compiling.
CompileCounts count_compilations(const std::vector<ConfigResult>& results);

}  // namespace attn

// How large a kernel's space is on one shape before anything runs: the
// cartesian product, the configurations every constraint accepts, and how many
// each constraint excluded first. Walks the product point by point (nothing is
// held in memory); past a limit of points it estimates from a uniform sample.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/search/space_sampler.hpp"

namespace attn {

struct SpaceCensus {
  long long product = 0;   // points in the product of the parameters' values
  long long valid = 0;     // points every constraint accepts
  long long examined = 0;  // points evaluated: the product, or the sample when estimated
  bool exact = true;       // false: valid and excluded_by are scaled up from a sample of `examined` points
  // Per constraint (the kernel's order): the points it was the first to exclude.
  std::vector<long long> excluded_by;
};

struct CensusLimits {
  long long exact_up_to = 2'000'000;  // products larger than this are sampled
  long long samples = 200'000;
  std::uint64_t seed = 1;
};

SpaceCensus census(const ConstrainedSpace& space, const CensusLimits& limits = {});

}  // namespace attn

#include "tuner/search/space_census.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

SpaceCensus census(const ConstrainedSpace& space, const CensusLimits& limits) {
  SpaceCensus out;
  out.product = space.product_size();
  out.excluded_by.assign(space.kernel().constraints.size(), 0);
  out.exact = out.product <= limits.exact_up_to;
  UniformStream rng(stream_seed(limits.seed, "census", 0));
  out.examined = out.exact ? out.product : limits.samples;
  for (long long i = 0; i < out.examined; ++i) {
    const long long point =
        out.exact ? i : static_cast<long long>(uniform_index(rng, static_cast<std::uint64_t>(out.product)));
    if (const auto failed = space.first_failed(space.at(point))) ++out.excluded_by[*failed];
    else ++out.valid;
  }
  if (!out.exact) {
    // Scaled to the product; a count seen at least once stays at least one.
    const double scale = static_cast<double>(out.product) / static_cast<double>(out.examined);
    auto scaled = [&](long long n) { return n == 0 ? 0 : std::max(1LL, std::llround(static_cast<double>(n) * scale)); };
    out.valid = scaled(out.valid);
    for (auto& n : out.excluded_by) n = scaled(n);
  }
  return out;
}

}  // namespace attn

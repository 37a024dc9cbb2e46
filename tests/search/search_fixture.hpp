// A synthetic constrained space and a cost over it with one known optimum,
// for testing strategies without a spec file or a device.
#pragma once

#include <cmath>

#include "tuner/search/search_loop.hpp"
#include "tuner/spec/spec.hpp"

namespace attn::test {

// A, B in 1..8, C in 0..5, D in {0, 1}: 768 in the product; A * B <= 24 and
// (C < 4 or D == 0) leave 440 valid.
inline KernelSpec constrained_kernel() {
  KernelSpec k;
  k.name = "synthetic";
  k.params = {{"A", {1, 2, 3, 4, 5, 6, 7, 8}}, {"B", {1, 2, 3, 4, 5, 6, 7, 8}}, {"C", {0, 1, 2, 3, 4, 5}}, {"D", {0, 1}}};
  const std::vector<std::string> names{"A", "B", "C", "D"};
  k.constraints.emplace_back("A * B <= 24", names);
  k.constraints.emplace_back("C < 4 || D == 0", names);
  return k;
}
inline constexpr long long kValidConfigs = 440;

// Smooth, with its minimum 1.0 at A=6, B=4, C=2, D=1; C=5 fails (no cost).
inline Cost synthetic_cost(const Config& c) {
  const double a = static_cast<double>(c[0].second.integer()), b = static_cast<double>(c[1].second.integer());
  const double cc = static_cast<double>(c[2].second.integer()), d = static_cast<double>(c[3].second.integer());
  if (c[2].second == 5) return std::nullopt;
  return 1.0 + 0.05 * (a - 6) * (a - 6) + 0.08 * (b - 4) * (b - 4) + 0.1 * std::abs(cc - 2) + 0.2 * (1 - d);
}

}  // namespace attn::test

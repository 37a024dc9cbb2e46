// The three determinism checks on one configuration and one shape,
// summed up as ConfigResult::checks records them:
//   {"deterministic": bool, "batch_invariant": bool|null, "cache_growth": bool|null,
//    "details": {"cross_run": ..., "batch_invariance": ..., "cache_growth": ...}}
// null: the check does not apply here (its details say why).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/check/derived_shapes.hpp"
#include "tuner/record/settings.hpp"

namespace attn {

struct DeterminismOptions {
  int runs = 5;                            // cross-run: the same inputs this many times
  std::vector<int> batch_sizes{2, 8, 33};  // compared with B=1
  int cache_growth_steps = 4;              // positions decoded one at a time; < 2 turns the check off
  // Cross-run on every shape of BATCH_SIZES (and B=1) too, not only on the shape under test.
  bool cross_run_every_batch = false;

  static DeterminismOptions from(const DeterminismSettings& settings);
};

// Runs the checks for CONFIG of KERNEL on FIELDS (the shape under test). Throws
// Outcome when the configuration cannot run on FIELDS itself.
nlohmann::json check_determinism(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                 const nlohmann::json& fields, const DeterminismOptions& options);

}  // namespace attn

// Cross-run determinism: the same inputs, run several times, must give the
// same bytes every time. Atomics whose order depends on scheduling, or a
// kernel reading state a previous run left behind, break it.
#pragma once

#include <string>
#include <vector>

#include "tuner/check/check_outcome.hpp"
#include "tuner/check/derived_shapes.hpp"

namespace attn {

// Runs PLAN on SHAPE RUNS times (at least 2) and compares every run with the
// first. details: {"shape", "runs", "identical", "mismatch": {..., "run": r}}.
CheckOutcome check_cross_run(Evaluator& evaluator, const Plan& plan, const DerivedShape& shape, int runs);

// The same on each shape of SHAPE_FIELDS, the first being the shape under test
// (throws Outcome when the configuration cannot run there; the others are
// listed as excluded). details: {"runs", "shapes": [{"shape", "identical" |
// "excluded"}], "mismatch": {..., "run", "shape"}} (the first one found).
CheckOutcome check_cross_runs(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                              const std::vector<nlohmann::json>& shape_fields, int runs);

}  // namespace attn

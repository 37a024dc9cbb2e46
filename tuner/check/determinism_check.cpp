#include "tuner/check/determinism_check.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/check/batch_invariance.hpp"
#include "tuner/check/cache_growth.hpp"
#include "tuner/check/cross_run.hpp"

namespace attn {
namespace {

nlohmann::json verdict(const CheckOutcome& o) { return o.passed ? nlohmann::json(*o.passed) : nlohmann::json(nullptr); }

}  // namespace

DeterminismOptions DeterminismOptions::from(const DeterminismSettings& s) {
  DeterminismOptions o;
  o.runs = s.runs;
  o.batch_sizes = s.batch_sizes;
  o.cache_growth_steps = s.cache_growth_steps;
  return o;
}

nlohmann::json check_determinism(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                 const nlohmann::json& fields, const DeterminismOptions& options) {
  Evaluator& evaluator = shapes.evaluator();
  const std::string batch = spec_operation(evaluator.spec()).batch_field();

  // Cross-run on the shape under test, and on B=1 and every compared batch size when asked.
  std::vector<nlohmann::json> cross_fields{fields};
  if (options.cross_run_every_batch && !batch.empty()) {
    std::vector<int> seen{fields.value(batch, 0)};
    std::vector<int> sizes{1};
    sizes.insert(sizes.end(), options.batch_sizes.begin(), options.batch_sizes.end());
    for (int n : sizes) {
      if (n < 1 || std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
      seen.push_back(n);
      cross_fields.push_back(with_field(fields, batch, n));
    }
  }
  const CheckOutcome cross = check_cross_runs(shapes, kernel, config, cross_fields, options.runs);
  const CheckOutcome batched = check_batch_invariance(shapes, kernel, config, fields, options.batch_sizes);
  const CheckOutcome growth = check_cache_growth(shapes, kernel, config, fields, options.cache_growth_steps);
  return {
      {"deterministic", verdict(cross)},
      {"batch_invariant", verdict(batched)},
      {"cache_growth", verdict(growth)},
      {"details", {{"cross_run", cross.details}, {"batch_invariance", batched.details}, {"cache_growth", growth.details}}}};
}

}  // namespace attn

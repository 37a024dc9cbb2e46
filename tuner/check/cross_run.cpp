#include "tuner/check/cross_run.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace attn {

CheckOutcome check_cross_run(Evaluator& evaluator, const Plan& plan, const DerivedShape& shape, int runs) {
  runs = std::max(runs, 2);
  CheckOutcome out;
  out.passed = true;
  out.details = {{"shape", shape.prepared.name}, {"runs", runs}};
  const Outputs first = evaluator.run_once(plan, shape.prepared);
  for (int r = 1; r < runs && *out.passed; ++r) {
    const Outputs again = evaluator.run_once(plan, shape.prepared);
    for (std::size_t k = 0; k < first.size(); ++k) {
      const ElementType type = shape.layouts.at(k).type;
      const auto diff = compare_bitwise(first[k], again[k], type);
      if (!diff) continue;
      ComparedSides sides{"run 0", fmt::format("run {}", r), &shape.layouts[k], 0, &shape.layouts[k], 0};
      out.details["mismatch"] = mismatch_json(*diff, sides);
      out.details["mismatch"]["run"] = r;
      out.passed = false;
      break;
    }
  }
  out.details["identical"] = *out.passed;
  return out;
}

CheckOutcome check_cross_runs(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                              const std::vector<nlohmann::json>& shape_fields, int runs) {
  Evaluator& evaluator = shapes.evaluator();
  CheckOutcome out;
  out.passed = true;
  out.details = {{"runs", std::max(runs, 2)}, {"shapes", nlohmann::json::array()}};
  for (std::size_t i = 0; i < shape_fields.size(); ++i) {
    DerivedShape& shape = shapes.get(shape_fields[i]);
    const ShapePlan plan = plan_on(evaluator, kernel, config, shape.prepared);
    if (!plan.plan) {
      if (i == 0) throw Outcome{Status::skipped, plan.excluded, {}};
      out.details["shapes"].push_back({{"shape", shape.prepared.name}, {"excluded", plan.excluded}});
      continue;
    }
    const CheckOutcome one = check_cross_run(evaluator, *plan.plan, shape, runs);
    out.details["shapes"].push_back({{"shape", shape.prepared.name}, {"identical", *one.passed}});
    if (!*one.passed && *out.passed) {
      out.passed = false;
      out.details["mismatch"] = one.details.at("mismatch");
      out.details["mismatch"]["shape"] = shape.prepared.name;
    }
  }
  return out;
}

}  // namespace attn

#include "tuner/check/cache_growth.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

// "Nq = 4, Nkv = 256": a summary's fields for a message.
std::string summary_text(const nlohmann::json& summary) {
  std::string text;
  for (const auto& [key, value] : summary.items())
    if (key != "position") text += fmt::format("{}{} = {}", text.empty() ? "" : ", ", key, value.dump());
  return text;
}

std::vector<std::byte> gather_elements(const std::vector<std::byte>& from, const std::vector<std::size_t>& elements,
                                       std::size_t element_bytes) {
  std::vector<std::byte> out(elements.size() * element_bytes);
  for (std::size_t e = 0; e < elements.size(); ++e)
    std::memcpy(out.data() + e * element_bytes, from.data() + elements[e] * element_bytes, element_bytes);
  return out;
}

}  // namespace

CheckOutcome check_cache_growth(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                const nlohmann::json& fields, int steps) {
  Evaluator& evaluator = shapes.evaluator();
  if (steps < 2) return CheckOutcome::not_applicable("disabled (fewer than 2 decode steps asked)");
  const CacheGrowthPlan growth = find_operation(evaluator.spec().operation).cache_growth(fields, steps);
  if (!growth.not_applicable.empty()) return CheckOutcome::not_applicable(growth.not_applicable);
  const std::size_t t_all = growth.steps.size();

  DerivedShape& at_once = shapes.get(growth.at_once);
  const ShapePlan at_once_plan = plan_on(evaluator, kernel, config, at_once.prepared);
  if (!at_once_plan.plan)
    return CheckOutcome::not_applicable(fmt::format("the kernel cannot compute {} positions at once ({}): {}", t_all,
                                                    summary_text(growth.at_once_summary), at_once_plan.excluded));

  CheckOutcome out;
  out.details = {{"positions", growth.positions}, {"at_once", growth.at_once_summary}, {"steps", nlohmann::json::array()}};
  const Outputs together = evaluator.run_once(*at_once_plan.plan, at_once.prepared);
  bool all_identical = true;
  for (std::size_t t = 0; t < t_all; ++t) {
    const CacheGrowthPlan::Step& step_plan = growth.steps[t];
    DerivedShape& step = shapes.get(step_plan.fields);
    const ShapePlan plan = plan_on(evaluator, kernel, config, step.prepared);
    if (!plan.plan)
      return CheckOutcome::not_applicable(
          fmt::format("decode step {} ({}) cannot run: {}", t, summary_text(step_plan.summary), plan.excluded));
    const Outputs alone = evaluator.run_once(*plan.plan, step.prepared);

    bool identical = true;
    for (std::size_t k = 0; k < alone.size(); ++k) {
      const OutputLayout& layout = at_once.layouts.at(k);
      const std::vector<std::size_t>& from = step_plan.at_once_elements.at(k);
      const std::vector<std::byte> gathered = gather_elements(together[k], from, element_bytes(layout.type));
      const auto diff = compare_bitwise(gathered, alone[k], layout.type);
      if (!diff) continue;
      identical = false;
      if (out.details.contains("mismatch")) continue;
      // The reference side's offset puts its first differing element where the at-once output holds it.
      ComparedSides sides{fmt::format("all {} positions at once", t_all),
                          fmt::format("decode step {} ({})", t, summary_text(step_plan.summary)),
                          &layout,
                          from[diff->first] - diff->first,
                          &step.layouts.at(k),
                          0};
      nlohmann::json m = mismatch_json(*diff, sides);
      m["step"] = t;
      m["position"] = step_plan.summary.value("position", nlohmann::json(nullptr));
      out.details["mismatch"] = m;
    }
    nlohmann::json entry = {{"step", t}};
    entry.update(step_plan.summary);
    entry["identical"] = identical;
    out.details["steps"].push_back(entry);
    all_identical = all_identical && identical;
  }
  out.passed = all_identical;
  return out;
}

}  // namespace attn

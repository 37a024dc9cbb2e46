#include "tuner/check/batch_invariance.hpp"

#include <optional>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

// Makes SINGLE (a B=1 shape) hold sequence SEQ of BATCHED (a batch of N) as
// its inputs. Returns why it cannot, when an input neither scales with the
// batch nor is shared by all sequences.
std::string upload_sequence(Device& device, const PreparedShape& batched, int n, int seq, PreparedShape& single) {
  const auto& from = batched.problem->buffers();
  const auto& to = single.problem->buffers();
  for (std::size_t k = 0; k < from.size(); ++k) {
    if (from[k].is_output) continue;
    const std::size_t one = to[k].data.size(), all = from[k].data.size();
    if (all == one * std::size_t(n)) {
      device.write(*single.buffers[k], from[k].data.data() + one * std::size_t(seq), one);
    } else if (all == one) {
      device.write(*single.buffers[k], from[k].data.data(), one);  // shared by every sequence (sinks)
    } else {
      return fmt::format("input '{}' has {} bytes at B=1 and {} at B={}: neither one sequence's share nor shared",
                         from[k].name, one, all, n);
    }
  }
  return {};
}

}  // namespace

CheckOutcome check_batch_invariance(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                    const nlohmann::json& fields, const std::vector<int>& batch_sizes) {
  Evaluator& evaluator = shapes.evaluator();
  const Operation& op = spec_operation(evaluator.spec());
  if (op.batch_field().empty())
    return CheckOutcome::not_applicable(fmt::format("operation '{}' has no batch dimension", evaluator.spec().operation));

  // Sequence 0 alone: drawn by the operation as such, or as a batch of one.
  const nlohmann::json drawn_alone = op.sequence_shape(fields, 0);
  const nlohmann::json single_fields = drawn_alone.is_null() ? op.with_batch(fields, 1) : drawn_alone;
  DerivedShape& single = shapes.get(single_fields);
  const ShapePlan single_plan = plan_on(evaluator, kernel, config, single.prepared);
  if (!single_plan.plan) return CheckOutcome::not_applicable(fmt::format("B=1 cannot run: {}", single_plan.excluded));
  const Outputs alone0 = evaluator.run_once(*single_plan.plan, single.prepared);

  CheckOutcome out;
  out.details = {{"reference", "B=1"}, {"compared", nlohmann::json::array()}};
  bool any = false, all_identical = true;
  for (int n : batch_sizes) {
    if (n <= 1) continue;
    nlohmann::json entry = {{"B", n}};
    const nlohmann::json batched_fields = op.with_batch(fields, n);
    DerivedShape* drawn = nullptr;
    try {
      drawn = &shapes.get(batched_fields);
    } catch (const BackendError& e) {  // a batch too large for the device is not the kernel's failure
      entry["excluded"] = fmt::format("its inputs do not fit on the device: {}", e.what());
      out.details["compared"].push_back(entry);
      continue;
    }
    DerivedShape& batched = *drawn;
    const ShapePlan plan = plan_on(evaluator, kernel, config, batched.prepared);
    if (!plan.plan) {
      entry["excluded"] = plan.excluded;
      out.details["compared"].push_back(entry);
      continue;
    }
    const Outputs together = evaluator.run_once(*plan.plan, batched.prepared);
    const std::vector<int> sequences{0, n - 1};
    entry["sequences"] = sequences;
    bool identical = true;
    for (int seq : sequences) {
      Outputs alone = alone0;
      const OutputLayout* alone_layouts = single.layouts.data();
      if (seq != 0) {
        DerivedShape* lone = nullptr;
        std::optional<Plan> lone_plan;
        if (!drawn_alone.is_null()) {
          lone = &shapes.get(op.sequence_shape(batched_fields, seq));
          ShapePlan p = plan_on(evaluator, kernel, config, lone->prepared);
          if (!p.plan) {
            entry["sequences"] = std::vector<int>{0};
            entry["last_sequence_not_compared"] = p.excluded;
            continue;
          }
          lone_plan = std::move(p.plan);
        } else {
          lone = &shapes.get(single_fields, fmt::format("sequence {} of B={}", seq, n));
          if (!lone->inputs_replaced) {
            if (std::string why = upload_sequence(evaluator.device(), batched.prepared, n, seq, lone->prepared);
                !why.empty()) {
              entry["sequences"] = std::vector<int>{0};
              entry["last_sequence_not_compared"] = why;
              continue;
            }
            lone->inputs_replaced = true;
          }
        }
        alone = evaluator.run_once(lone_plan ? *lone_plan : *single_plan.plan, lone->prepared);
        alone_layouts = lone->layouts.data();
      }
      for (std::size_t k = 0; k < together.size(); ++k) {
        const OutputLayout& layout = batched.layouts[k];
        const std::size_t eb = element_bytes(layout.type);
        if (layout.sequence_offsets.size() != std::size_t(n) + 1)
          return CheckOutcome::not_applicable(
              fmt::format("output '{}' declares no sequences of its batch of {}", layout.buffer, n));
        const std::size_t first = layout.sequence_offsets[std::size_t(seq)];
        const std::size_t count = layout.sequence_offsets[std::size_t(seq) + 1] - first;
        if (count * eb != alone[k].size())
          return CheckOutcome::not_applicable(fmt::format("output '{}': sequence {} of B={} has {} bytes, alone {}",
                                                          layout.buffer, seq, n, count * eb, alone[k].size()));
        const std::span<const std::byte> slice(together[k].data() + first * eb, count * eb);
        const auto diff = compare_bitwise(alone[k], slice, layout.type);
        if (!diff) continue;
        identical = false;
        if (!out.details.contains("mismatch")) {
          ComparedSides sides{"B=1", fmt::format("B={}", n), &alone_layouts[k], 0, &layout, first};
          out.details["mismatch"] = mismatch_json(*diff, sides);
          out.details["mismatch"]["B"] = n;
          out.details["mismatch"]["sequence"] = seq;
        }
      }
    }
    entry["identical"] = identical;
    out.details["compared"].push_back(entry);
    any = true;
    all_identical = all_identical && identical;
  }
  if (!any) {
    out.details["not_applicable"] = "no batch size other than 1 could run";
    return out;
  }
  out.passed = all_identical;
  return out;
}

}  // namespace attn

#include "tuner/check/batch_invariance.hpp"

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
  const std::string batch = find_operation(evaluator.spec().operation).batch_field();
  if (batch.empty())
    return CheckOutcome::not_applicable(fmt::format("operation '{}' has no batch dimension", evaluator.spec().operation));

  const nlohmann::json single_fields = with_field(fields, batch, 1);
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
    DerivedShape* drawn = nullptr;
    try {
      drawn = &shapes.get(with_field(fields, batch, n));
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
      if (seq != 0) {
        DerivedShape& lone = shapes.get(single_fields, fmt::format("sequence {} of B={}", seq, n));
        if (!lone.inputs_replaced) {
          if (std::string why = upload_sequence(evaluator.device(), batched.prepared, n, seq, lone.prepared); !why.empty()) {
            entry["sequences"] = std::vector<int>{0};
            entry["last_sequence_not_compared"] = why;
            continue;
          }
          lone.inputs_replaced = true;
        }
        alone = evaluator.run_once(*single_plan.plan, lone.prepared);
      }
      for (std::size_t k = 0; k < together.size(); ++k) {
        const std::size_t share = alone[k].size();
        if (together[k].size() != share * std::size_t(n)) {
          return CheckOutcome::not_applicable(fmt::format("output '{}' has {} bytes at B=1 and {} at B={}: the batch is "
                                                          "not its outermost dimension", batched.layouts[k].buffer,
                                                          share, together[k].size(), n));
        }
        const std::span<const std::byte> slice(together[k].data() + share * std::size_t(seq), share);
        const ElementType type = batched.layouts[k].type;
        const auto diff = compare_bitwise(alone[k], slice, type);
        if (!diff) continue;
        identical = false;
        if (!out.details.contains("mismatch")) {
          const std::size_t per_seq = share / element_bytes(type);
          ComparedSides sides{"B=1", fmt::format("B={}", n), &single.layouts[k], 0, &batched.layouts[k],
                              per_seq * std::size_t(seq)};
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

#include "tuner/check/cache_growth.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/attention_shape.hpp"

namespace attn {
namespace {

const HostBuffer& host_buffer(const PreparedShape& shape, const std::string& name, std::size_t* index) {
  const auto& buffers = shape.problem->buffers();
  for (std::size_t k = 0; k < buffers.size(); ++k)
    if (buffers[k].name == name) {
      *index = k;
      return buffers[k];
    }
  throw Error(fmt::format("cache growth: the attention problem has no buffer '{}'", name));
}

// Copies ROWS of ROW_BYTES each, source row r at FROM_OFFSET + r * FROM_STRIDE.
std::vector<std::byte> gather_rows(const std::vector<std::byte>& from, std::size_t rows, std::size_t from_offset,
                                   std::size_t from_stride, std::size_t row_bytes) {
  std::vector<std::byte> out(rows * row_bytes);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy_n(from.begin() + std::ptrdiff_t(from_offset + r * from_stride), row_bytes,
                out.begin() + std::ptrdiff_t(r * row_bytes));
  return out;
}

// Step T's inputs (a cache of L keys), cut from the at-once inputs (T_ALL rows over N keys).
void upload_step_inputs(Device& device, const PreparedShape& at_once, const AttentionShape& s, int t, int t_all, int n,
                        int len, PreparedShape& step) {
  const std::size_t qb = q_bytes_per_element(s.dtype), kb = kv_bytes_per_element(s.dtype), D = std::size_t(s.D);
  std::size_t qi, ki, vi, mi, si;
  const HostBuffer& q = host_buffer(at_once, "q", &qi);
  const HostBuffer& k = host_buffer(at_once, "k", &ki);
  const HostBuffer& v = host_buffer(at_once, "v", &vi);
  const HostBuffer& mask = host_buffer(at_once, "mask", &mi);
  const HostBuffer& sinks = host_buffer(at_once, "sinks", &si);

  const auto step_q = gather_rows(q.data, std::size_t(s.Hq), std::size_t(t) * D * qb, std::size_t(t_all) * D * qb, D * qb);
  device.write(*step.buffers[qi], step_q.data(), step_q.size());
  for (const auto& [src, index] : {std::pair{&k, ki}, std::pair{&v, vi}}) {
    const auto rows = gather_rows(src->data, std::size_t(s.Hkv), 0, std::size_t(n) * D * kb, std::size_t(len) * D * kb);
    device.write(*step.buffers[index], rows.data(), rows.size());
  }
  if (s.mask) device.write(*step.buffers[mi], mask.data.data() + std::size_t(t) * n * 2, std::size_t(len) * 2);
  device.write(*step.buffers[si], sinks.data.data(), sinks.data.size());
}

}  // namespace

CheckOutcome check_cache_growth(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                const nlohmann::json& fields, int steps) {
  Evaluator& evaluator = shapes.evaluator();
  if (evaluator.spec().operation != "attention")
    return CheckOutcome::not_applicable(fmt::format("defined for the attention operation, not '{}'", evaluator.spec().operation));
  if (steps < 2) return CheckOutcome::not_applicable("disabled (fewer than 2 decode steps asked)");
  const AttentionShape base = AttentionShape::from_json(fields);
  const int n = base.Nkv, t_all = std::min(steps, n);
  if (t_all < 2) return CheckOutcome::not_applicable(fmt::format("Nkv = {} leaves fewer than 2 positions to decode", n));

  nlohmann::json at_once_fields = with_field(with_field(with_field(fields, "B", 1), "Nq", t_all), "causal", 1);
  DerivedShape& at_once = shapes.get(at_once_fields);
  const ShapePlan at_once_plan = plan_on(evaluator, kernel, config, at_once.prepared);
  if (!at_once_plan.plan)
    return CheckOutcome::not_applicable(fmt::format("the kernel cannot compute {} positions at once (Nq = {}): {}", t_all,
                                                    t_all, at_once_plan.excluded));
  const AttentionShape s = AttentionShape::from_json(at_once_fields);

  CheckOutcome out;
  out.details = {{"positions", {n - t_all, n - 1}},
                 {"at_once", {{"Nq", t_all}, {"Nkv", n}}},
                 {"steps", nlohmann::json::array()}};
  const Outputs together = evaluator.run_once(*at_once_plan.plan, at_once.prepared);
  const OutputLayout& at_once_layout = at_once.layouts.at(0);
  const std::size_t eb = element_bytes(at_once_layout.type), D = std::size_t(s.D);
  bool all_identical = true;
  for (int t = 0; t < t_all; ++t) {
    const int len = n - t_all + t + 1;
    DerivedShape& step = shapes.get(with_field(with_field(at_once_fields, "Nq", 1), "Nkv", len), "cache growth step");
    const ShapePlan step_plan = plan_on(evaluator, kernel, config, step.prepared);
    if (!step_plan.plan)
      return CheckOutcome::not_applicable(fmt::format("decode step {} (Nq = 1, Nkv = {}) cannot run: {}", t, len,
                                                      step_plan.excluded));
    if (!step.inputs_replaced) {
      upload_step_inputs(evaluator.device(), at_once.prepared, s, t, t_all, n, len, step.prepared);
      step.inputs_replaced = true;
    }
    const Outputs alone = evaluator.run_once(*step_plan.plan, step.prepared);

    // Head h's row t at once is o[0][h][t][:], the step's o[0][h][0][:].
    bool identical = true;
    std::size_t differing = 0;
    nlohmann::json max_ulps = nullptr;
    nlohmann::json first;
    for (int h = 0; h < s.Hq; ++h) {
      const std::size_t at = (std::size_t(h) * t_all + t) * D, st = std::size_t(h) * D;
      const std::span<const std::byte> row(together[0].data() + at * eb, D * eb), mine(alone[0].data() + st * eb, D * eb);
      const auto diff = compare_bitwise(row, mine, at_once_layout.type);
      if (!diff) continue;
      identical = false;
      differing += diff->differing;
      if (diff->max_ulps && (max_ulps.is_null() || *diff->max_ulps > max_ulps.get<std::uint64_t>())) max_ulps = *diff->max_ulps;
      if (first.is_null()) {
        ComparedSides sides{fmt::format("all {} positions at once", t_all), fmt::format("decode step {} (Nkv = {})", t, len),
                            &at_once_layout, at, &step.layouts.at(0), st};
        first = mismatch_json(*diff, sides);
      }
    }
    out.details["steps"].push_back({{"step", t}, {"position", len - 1}, {"Nkv", len}, {"identical", identical}});
    if (!identical && !out.details.contains("mismatch")) {
      first["differing_elements"] = differing;
      first["max_ulps"] = max_ulps;
      first["step"] = t;
      first["position"] = len - 1;
      out.details["mismatch"] = first;
    }
    all_identical = all_identical && identical;
  }
  out.passed = all_identical;
  return out;
}

}  // namespace attn

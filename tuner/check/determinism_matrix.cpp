#include "tuner/check/determinism_matrix.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "tuner/record/determinism_summary.hpp"

namespace attn {
namespace {

bool has_toggle(const MatrixAxes& axes, const std::string& name) {
  return std::find(axes.toggles.begin(), axes.toggles.end(), name) != axes.toggles.end();
}

std::string verdict_text(const nlohmann::json& checks, const char* name) {
  if (!checks.contains(name)) return "-";
  const auto& v = checks.at(name);
  return v.is_null() ? "n/a" : v.get<bool>() ? "yes" : "NO";
}

// The first mismatch of the first failed check, else why cache growth did not apply.
std::string point_note(const nlohmann::json& p) {
  if (p.contains("reason")) return p.at("reason").get<std::string>();
  if (!p.contains("checks")) return "";
  const auto& details = p.at("checks").at("details");
  for (const char* key : {"cross_run", "batch_invariance", "cache_growth"})
    if (details.at(key).contains("mismatch")) return mismatch_summary(details.at(key).at("mismatch"));
  const auto& growth = details.at("cache_growth");
  return growth.contains("not_applicable") ? "cache growth: " + growth.at("not_applicable").get<std::string>() : "";
}

}  // namespace

MatrixAxes MatrixAxes::quick() {
  MatrixAxes a;
  a.head_dims = {64};
  a.kv_lengths = {256};
  a.gqa = {1, 2};
  a.toggles = {"all"};  // all three features together, and none
  return a;
}

nlohmann::json MatrixAxes::to_json() const {
  return {{"D", head_dims}, {"KV", kv_lengths},   {"B", batch_sizes},
          {"GQA", gqa},     {"toggles", toggles}, {"alibi_max_bias", alibi_max_bias}};
}

std::string MatrixPoint::label() const {
  std::string s = fmt::format("D={} KV={} GQA={}", D, KV, gqa);
  if (mask) s += " mask";
  if (alibi) s += " alibi";
  if (sinks) s += " sinks";
  return s;
}

std::vector<MatrixPoint> matrix_points(const MatrixAxes& axes, const nlohmann::json& base) {
  // Feature combinations: every subset of the toggled features ("all": none or all three together).
  std::vector<std::array<bool, 3>> features;
  if (has_toggle(axes, "all")) {
    features = {{false, false, false}, {true, true, true}};
  } else {
    const bool tm = has_toggle(axes, "mask"), ta = has_toggle(axes, "alibi"), ts = has_toggle(axes, "sinks");
    for (int m = 0; m <= int(tm); ++m)
      for (int a = 0; a <= int(ta); ++a)
        for (int s = 0; s <= int(ts); ++s) features.push_back({m == 1, a == 1, s == 1});
  }
  const int hq = base.at("Hq").get<int>(), nq = base.at("Nq").get<int>();
  std::vector<MatrixPoint> points;
  for (int d : axes.head_dims)
    for (int kv : axes.kv_lengths)
      for (int g : axes.gqa)
        for (const auto& [m, a, s] : features) {
          MatrixPoint p;
          p.D = d, p.KV = kv, p.gqa = g, p.mask = m, p.alibi = a, p.sinks = s;
          p.fields = base;
          p.fields["B"] = 1;
          p.fields["D"] = d;
          p.fields["Nkv"] = kv;
          p.fields["Nq"] = std::min(nq, kv);
          p.fields["Hkv"] = g > 0 && hq % g == 0 ? hq / g : hq;
          p.fields["mask"] = m ? 1 : 0;
          p.fields["max_bias"] = a ? axes.alibi_max_bias : 0.0;
          p.fields["sinks"] = s ? 1 : 0;
          if (g < 1 || hq % g != 0) p.skip_reason = fmt::format("Hq = {} is not a multiple of GQA {}", hq, g);
          points.push_back(std::move(p));
        }
  return points;
}

nlohmann::json run_matrix_point(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                const MatrixPoint& point, const DeterminismOptions& options) {
  nlohmann::json r = {{"point",
                       {{"D", point.D},
                        {"KV", point.KV},
                        {"GQA", point.gqa},
                        {"mask", point.mask},
                        {"alibi", point.alibi},
                        {"sinks", point.sinks}}},
                      {"fields", point.fields}};
  if (!point.skip_reason.empty()) {
    r["status"] = "skipped";
    r["reason"] = point.skip_reason;
    return r;
  }
  Evaluator& evaluator = shapes.evaluator();
  try {
    DerivedShape& single = shapes.get(point.fields);
    const ShapePlan plan = plan_on(evaluator, kernel, config, single.prepared);
    if (!plan.plan) {
      r["status"] = "skipped";
      r["reason"] = plan.excluded;
      return r;
    }
    // Judge determinism only of outputs that are right.
    const VerifyReport verify =
        single.prepared.problem->verify(evaluator.run_once(*plan.plan, single.prepared), evaluator.spec().tolerance);
    r["verify"] = verify;
    if (!verify.passed) {
      r["status"] = "incorrect";
      r["reason"] = fmt::format("B=1 output misses the reference: rel_l2 {:.3g}, max_abs {:.3g}; worst: {}", verify.rel_l2,
                                verify.max_abs, verify.worst);
      return r;
    }
    DeterminismOptions o = options;
    o.cross_run_every_batch = true;
    r["checks"] = check_determinism(shapes, kernel, config, point.fields, o);
    const auto& c = r["checks"];
    const bool passed = c.at("deterministic") == true && c.at("batch_invariant") != false && c.at("cache_growth") != false;
    r["status"] = passed ? "passed" : "failed";
  } catch (const Outcome& o) {
    r["status"] = "failed";
    r["reason"] = fmt::format("{}: {}", status_name(o.status), o.reason);
  }
  return r;
}

nlohmann::json run_determinism_matrix(Evaluator& evaluator, const KernelSpec& kernel, const Config& config,
                                      const nlohmann::json& base, const MatrixAxes& axes, const DeterminismOptions& options,
                                      const std::function<void(const nlohmann::json&)>& on_point) {
  DeterminismOptions o = options;
  o.batch_sizes.clear();
  for (int n : axes.batch_sizes)
    if (n > 1) o.batch_sizes.push_back(n);
  DerivedShapes shapes(evaluator);
  nlohmann::json points = nlohmann::json::array();
  std::map<std::string, int> counts{{"passed", 0}, {"failed", 0}, {"incorrect", 0}, {"skipped", 0}};
  for (const MatrixPoint& point : matrix_points(axes, base)) {
    shapes.clear();  // one point's shapes at a time on the device
    nlohmann::json r = run_matrix_point(shapes, kernel, config, point, o);
    ++counts[r.at("status").get<std::string>()];
    if (on_point) on_point(r);
    points.push_back(std::move(r));
  }
  nlohmann::json summary = counts;
  summary["points"] = points.size();
  return {{"axes", axes.to_json()}, {"base_shape", base}, {"points", points}, {"summary", summary}};
}

std::string matrix_table(const nlohmann::json& points) {
  std::string out = fmt::format("{:>4} {:>6} {:>4} {:>5} {:>5} {:>5}  {:<8} {:<9} {:<6} {:<9} {}\n", "D", "KV", "GQA",
                                "mask", "alibi", "sinks", "determ.", "batch-inv", "cache", "status", "note");
  for (const auto& p : points) {
    const auto& pt = p.at("point");
    const nlohmann::json checks = p.value("checks", nlohmann::json::object());
    auto on = [&](const char* k) { return pt.at(k).get<bool>() ? "on" : "-"; };
    out += fmt::format("{:>4} {:>6} {:>4} {:>5} {:>5} {:>5}  {:<8} {:<9} {:<6} {:<9} {}\n", pt.at("D").get<int>(),
                       pt.at("KV").get<int>(), pt.at("GQA").get<int>(), on("mask"), on("alibi"), on("sinks"),
                       verdict_text(checks, "deterministic"), verdict_text(checks, "batch_invariant"),
                       verdict_text(checks, "cache_growth"), p.at("status").get<std::string>(), point_note(p));
  }
  return out;
}

}  // namespace attn

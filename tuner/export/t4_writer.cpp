#include "tuner/export/t4_writer.hpp"

#include <fmt/format.h>

namespace attn {
namespace {

nlohmann::json measurement(const std::string& name, const nlohmann::json& value, const std::string& unit) {
  return {{"name", name}, {"value", value}, {"unit", unit}};
}

nlohmann::json measurements(const ConfigResult& r) {
  nlohmann::json m = nlohmann::json::array();
  if (r.timing) {
    m.push_back(measurement("time", r.timing->median_ms, "ms"));
    m.push_back(measurement("time_q1", r.timing->q1_ms, "ms"));
    m.push_back(measurement("time_q3", r.timing->q3_ms, "ms"));
    m.push_back(measurement("time_min", r.timing->min_ms, "ms"));
    m.push_back(measurement("rel_noise", r.timing->rel_noise, ""));
    m.push_back(measurement("samples", r.timing->samples, ""));
  }
  if (r.gflops > 0) m.push_back(measurement("TFLOP/s", r.gflops / 1000, "TFLOP/s"));
  if (r.gbps > 0) m.push_back(measurement("GB/s", r.gbps, "GB/s"));
  for (const auto& [entry, res] : r.resources) {
    if (res.registers) m.push_back(measurement(fmt::format("registers.{}", entry), *res.registers, ""));
    if (res.spill_store_bytes)
      m.push_back(measurement(fmt::format("spill_store_bytes.{}", entry), *res.spill_store_bytes, "B"));
  }
  // Determinism checks as 1 (passed) or 0: T4 measurements hold numbers, strings or arrays.
  for (const char* check : {"deterministic", "batch_invariant", "cache_growth"})
    if (r.checks.is_object() && r.checks.contains(check) && r.checks.at(check).is_boolean())
      m.push_back(measurement(check, r.checks.at(check).get<bool>() ? 1 : 0, ""));
  return m;
}

}  // namespace

const char* t4_invalidity(const ConfigResult& result) {
  switch (result.status) {
    case Status::ok: return "correct";
    case Status::compile_failed: return "compile";
    case Status::launch_failed:
    case Status::crashed:
    case Status::host_oom: return "runtime";
    case Status::incorrect: return "correctness";
    case Status::timeout: return "timeout";
    case Status::skipped:
      // A preset breaking a constraint, or a device limit it exceeds (a launch that cannot run).
      return result.reason.find("constraint") != std::string::npos ? "constraints" : "runtime";
  }
  return "runtime";
}

nlohmann::json t4_results(const Leaderboard& leaderboard, const LeaderboardGroup& group) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : group.entries) {
    nlohmann::json configuration = nlohmann::json::object();
    for (const auto& [name, value] : r.job.config) configuration[name] = value.to_json();
    nlohmann::json times = {{"compilation_time", r.compile_ms}};
    times["runtimes"] = r.timing ? nlohmann::json::array({r.timing->median_ms}) : nlohmann::json::array();
    if (r.timing) times["benchmark"] = r.timing->wall_s * 1000;
    nlohmann::json entry = {{"configuration", configuration},
                            {"objectives", {"time"}},
                            {"times", times},
                            {"invalidity", t4_invalidity(r)},
                            {"correctness", r.verify && r.verify->passed ? 1 : 0},
                            {"measurements", measurements(r)}};
    // T4 folds crashes, host OOM and skips into `runtime`: attn-tune's own status keeps an import exact.
    entry["status"] = status_name(r.status);
    if (!r.reason.empty()) entry["reason"] = r.reason;
    if (!leaderboard.created_utc.empty()) entry["timestamp"] = leaderboard.created_utc;
    results.push_back(std::move(entry));
  }
  return {{"schema_version", kT4SchemaVersion},
          {"results", results},
          {"metadata",
           {{"timeunit", "milliseconds"},
            {"kernel", group.kernel},
            {"shape", group.shape},
            {"shape_fields", group.shape_fields},
            {"parameters", group.param_names()},  // a configuration's order (JSON objects have none)
            {"spec", leaderboard.spec_name},
            {"device", leaderboard.device.name}}}};
}

nlohmann::json t4_metadata(const Leaderboard& leaderboard) {
  return {
      {"schema_version", kT4SchemaVersion},
      {"metadata",
       {{"hardware", {{"hardware_description", nlohmann::json::array({leaderboard.device.to_json()})}}},
        {"environment",
         {{"device_query", leaderboard.device.to_json()},
          {"requirements", {fmt::format("attn-tune {} ({})", leaderboard.attn_tune_version, leaderboard.git_commit)}}}}}}};
}

}  // namespace attn

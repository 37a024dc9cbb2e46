#include "tuner/record/result.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

namespace {
constexpr Status kAll[] = {Status::ok,      Status::compile_failed, Status::launch_failed, Status::incorrect,
                           Status::skipped, Status::crashed,        Status::timeout,       Status::host_oom};

KernelResources resources_from_json(const nlohmann::json& j) {
  KernelResources r;
  auto get = [&](const char* key, auto& field) {
    if (j.contains(key)) field = j.at(key).get<typename std::remove_reference_t<decltype(field)>::value_type>();
  };
  get("registers", r.registers);
  get("private_mem_bytes", r.private_mem_bytes);
  get("spill_store_bytes", r.spill_store_bytes);
  get("spill_load_bytes", r.spill_load_bytes);
  get("static_local_bytes", r.static_local_bytes);
  get("max_work_group_size", r.max_work_group_size);
  get("theoretical_occupancy", r.theoretical_occupancy);
  get("driver_occupancy", r.driver_occupancy);
  get("occupancy_limited_by", r.occupancy_limited_by);
  get("symbol", r.symbol);
  if (j.contains("compiler_notes")) r.compiler_notes = j.at("compiler_notes").get<std::vector<std::string>>();
  return r;
}
}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::compile_failed: return "compile_failed";
    case Status::launch_failed: return "launch_failed";
    case Status::incorrect: return "incorrect";
    case Status::skipped: return "skipped";
    case Status::crashed: return "crashed";
    case Status::timeout: return "timeout";
    case Status::host_oom: return "host_oom";
  }
  return "unknown";
}

Status status_from_name(const std::string& name) {
  for (Status s : kAll)
    if (name == status_name(s)) return s;
  throw Error(fmt::format("unknown status '{}'", name));
}

std::string Job::key() const { return fmt::format("{}|{}|{}", kernel, shape, config_key(config)); }

nlohmann::json Job::to_json() const {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& [name, value] : config) params.push_back({name, value.to_json()});
  return {{"kernel", kernel}, {"shape", shape}, {"params", params}, {"preset", preset}};
}

Job Job::from_json(const nlohmann::json& j) {
  Job job;
  job.kernel = j.at("kernel").get<std::string>();
  job.shape = j.at("shape").get<std::string>();
  // A real stays a real (1.0 is written "1.0"), so a resumed key is the journaled one.
  for (const auto& p : j.at("params")) job.config.emplace_back(p.at(0).get<std::string>(), ParamValue::from_json(p.at(1)));
  job.preset = j.value("preset", "");
  return job;
}

nlohmann::json ConfigResult::to_json() const {
  nlohmann::json j = job.to_json();
  j["key"] = config_key(job.config);
  j["status"] = status_name(status);
  if (!reason.empty()) j["reason"] = reason;
  if (!log.empty()) j["log"] = log;
  j["defines"] = defines;
  if (!launches.empty()) j["launches"] = launches;
  if (workspace_bytes) j["workspace_bytes"] = workspace_bytes;
  if (timing) j["timing"] = timing->to_json();
  if (clocks) j["clocks"] = clocks->to_json();
  if (timing) {
    j["gflops"] = gflops;
    j["gbps"] = gbps;
    j["flops"] = flops;
    j["bytes"] = bytes;
    if (!item_unit.empty()) j["throughput"] = {{"unit", item_unit}, {"per_s", items_per_s}};
  }
  j["compile_ms"] = compile_ms;
  if (compile_cached) j["compile_cached"] = true;
  nlohmann::json res = nlohmann::json::object();
  for (const auto& [entry, r] : resources) res[entry] = r.to_json();
  j["resources"] = res;
  if (verify) j["verify"] = verify->to_json();
  if (!checks.empty()) j["checks"] = checks;
  if (tie)
    j["tie"] = {{"order", tie->order},
                {"of", tie->of},
                {"interleaved_median_ms", tie->interleaved_median_ms},
                {"interleaved_rel_noise", tie->interleaved_rel_noise}};
  if (!device.empty()) j["device"] = device;
  if (timing) j["stage"] = stage;
  if (replayed) j["replayed"] = true;
  if (cost) j["cost"] = *cost;
  return j;
}

ConfigResult ConfigResult::from_json(const nlohmann::json& j) {
  ConfigResult r;
  r.job = Job::from_json(j);
  r.status = status_from_name(j.at("status").get<std::string>());
  r.reason = j.value("reason", "");
  r.log = j.value("log", "");
  r.defines = j.value("defines", "");
  r.launches = j.value("launches", nlohmann::json::array());
  r.workspace_bytes = j.value("workspace_bytes", std::size_t{0});
  if (j.contains("timing")) r.timing = SampleStats::from_json(j.at("timing"));
  if (j.contains("clocks")) r.clocks = ClockRecord::from_json(j.at("clocks"));
  r.gflops = j.value("gflops", 0.0);
  r.gbps = j.value("gbps", 0.0);
  r.flops = j.value("flops", 0.0);
  if (j.contains("throughput")) {
    r.item_unit = j.at("throughput").value("unit", "");
    r.items_per_s = j.at("throughput").value("per_s", 0.0);
  }
  r.bytes = j.value("bytes", 0.0);
  r.compile_ms = j.value("compile_ms", 0.0);
  r.compile_cached = j.value("compile_cached", false);
  if (j.contains("resources"))
    for (const auto& [entry, res] : j.at("resources").items()) r.resources[entry] = resources_from_json(res);
  if (j.contains("verify")) {
    const auto& v = j.at("verify");
    VerifyReport vr;
    vr.passed = v.value("passed", false);
    vr.rel_l2 = v.value("rel_l2", 0.0);
    vr.max_abs = v.value("max_abs", 0.0);
    vr.rows_checked = v.value("rows_checked", 0LL);
    vr.rows_total = v.value("rows_total", 0LL);
    vr.nonfinite = v.value("nonfinite", 0LL);
    vr.worst = v.value("worst", "");
    r.verify = vr;
  }
  r.checks = j.value("checks", nlohmann::json::object());
  if (j.contains("tie")) {
    const auto& t = j.at("tie");
    r.tie = Tie{t.value("order", 1), t.value("of", 2), t.value("interleaved_median_ms", 0.0),
                t.value("interleaved_rel_noise", 0.0)};
  }
  r.device = j.value("device", "");
  r.stage = j.value("stage", Stage::thorough);  // written before stages: measured in full
  r.replayed = j.value("replayed", false);
  if (j.contains("cost")) r.cost = j.at("cost").get<EvaluationCost>();
  return r;
}

}  // namespace attn

#include "tuner/record/result.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

namespace {
constexpr Status kAll[] = {Status::ok,      Status::compile_failed, Status::launch_failed, Status::incorrect,
                           Status::skipped, Status::crashed,        Status::timeout,       Status::host_oom};
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
  if (timing) j["timing"] = *timing;
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
  if (verify) j["verify"] = *verify;
  if (!checks.empty()) j["checks"] = checks;
  if (tie) j["tie"] = *tie;
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
  if (j.contains("timing")) r.timing = j.at("timing").get<SampleStats>();
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
    for (const auto& [entry, res] : j.at("resources").items()) r.resources[entry] = KernelResources::from_json(res);
  if (j.contains("verify")) r.verify = j.at("verify").get<VerifyReport>();
  r.checks = j.value("checks", nlohmann::json::object());
  if (j.contains("tie")) r.tie = j.at("tie").get<Tie>();
  r.device = j.value("device", "");
  r.stage = j.value("stage", Stage::thorough);  // written before stages: measured in full
  r.replayed = j.value("replayed", false);
  if (j.contains("cost")) r.cost = j.at("cost").get<EvaluationCost>();
  return r;
}

}  // namespace attn

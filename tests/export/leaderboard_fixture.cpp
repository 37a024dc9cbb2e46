#include "tests/export/leaderboard_fixture.hpp"

#include <algorithm>

#include "tuner/run/result.hpp"

namespace attn::test {

const FixtureDevice kH200{"NVIDIA H200", "cuda", "sm_90", "NVIDIA Corporation"};
const FixtureDevice kH100{"NVIDIA H100 80GB HBM3", "cuda", "sm_90", "NVIDIA Corporation"};
const FixtureDevice kA100{"NVIDIA A100-SXM4-80GB", "cuda", "sm_80", "NVIDIA Corporation"};
const FixtureDevice kPocl{"pthread-skylake-avx512-AMD EPYC", "opencl", "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512",
                          "AuthenticAMD"};

nlohmann::json attention_fields(const std::string& dtype, long long D, long long causal, long long Nq, long long Nkv) {
  return {{"dtype", dtype}, {"B", 1},      {"Hq", 8},    {"Hkv", 8},    {"Nq", Nq},          {"Nkv", Nkv},
          {"D", D},         {"causal", causal}, {"window", 0}, {"mask", 0}, {"sinks", 0}, {"max_bias", 0.0}};
}

namespace {

nlohmann::json entry_json(const FixtureEntry& e, double flops, double bytes) {
  nlohmann::json params = nlohmann::json::array();
  std::string key;
  for (const auto& [n, v] : e.params) {
    params.push_back({n, v});
    key += (key.empty() ? "" : ",") + n + "=" + std::to_string(v);
  }
  nlohmann::json j = {{"params", params}, {"preset", ""}, {"key", key}, {"status", e.status}, {"defines", ""},
                      {"compile_ms", 12.0}, {"resources", {{"k", {{"private_mem_bytes", 256}, {"static_local_bytes", 8192}}}}}};
  if (!e.reason.empty()) j["reason"] = e.reason;
  if (e.status == "ok") {
    const double m = e.median_ms, spread = e.noise * m;
    j["timing"] = {{"samples", 20},         {"median_ms", m},        {"min_ms", m - spread}, {"max_ms", m + 2 * spread},
                   {"mean_ms", m},          {"q1_ms", m - 0.6745 * spread}, {"q3_ms", m + 0.6745 * spread},
                   {"stddev_ms", spread},   {"rel_noise", e.noise},  {"converged", true},    {"wall_s", 0.1}};
    j["gflops"] = flops / (m * 1e6);
    j["gbps"] = bytes / (m * 1e6);
    j["flops"] = flops;
    j["bytes"] = bytes;
    j["verify"] = {{"passed", true}, {"rel_l2", 2e-6}, {"max_abs", 1e-5}, {"rows_checked", 64}, {"rows_total", 64}};
  }
  if (!e.checks.empty()) j["checks"] = e.checks;
  return j;
}

}  // namespace

nlohmann::json fixture_leaderboard(const FixtureDevice& device, const std::string& spec, const std::vector<FixtureGroup>& groups) {
  nlohmann::json out_groups = nlohmann::json::array();
  for (const auto& g : groups) {
    const double n = g.shape_fields.at("Nq").get<double>() * g.shape_fields.at("Nkv").get<double>();
    const double d = g.shape_fields.at("D").get<double>();
    const double flops = 4 * 8 * n * d, bytes = 8 * (3 * g.shape_fields.at("Nkv").get<double>() + g.shape_fields.at("Nq").get<double>()) * d * 2;
    std::vector<FixtureEntry> sorted = g.entries;
    std::stable_sort(sorted.begin(), sorted.end(), [](const FixtureEntry& a, const FixtureEntry& b) {
      if ((a.status == "ok") != (b.status == "ok")) return a.status == "ok";
      return a.status == "ok" && a.median_ms < b.median_ms;
    });
    nlohmann::json entries = nlohmann::json::array();
    nlohmann::json counts = nlohmann::json::object();
    int rank = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      nlohmann::json e = entry_json(sorted[i], flops, bytes);
      if (!g.baseline_preset.empty() && i == sorted.size() / 2 && sorted[i].status == "ok") e["preset"] = g.baseline_preset;
      if (sorted[i].status == "ok") e["rank"] = ++rank;
      counts[sorted[i].status] = counts.value(sorted[i].status, 0) + 1;
      entries.push_back(std::move(e));
    }
    nlohmann::json group = {{"kernel", g.kernel}, {"shape", g.shape}, {"shape_fields", g.shape_fields}, {"counts", counts}, {"entries", entries}};
    if (!g.baseline_preset.empty()) group["baseline"] = {{"preset", g.baseline_preset}};
    out_groups.push_back(std::move(group));
  }
  return {{"schema", "attn-tune.leaderboard/1"},
          {"attn_tune", {{"version", "0.1.0"}, {"git_commit", "fixture"}}},
          {"created_utc", "2026-11-21T00:00:00Z"},
          {"command", "attn-tune sweep fixture.json"},
          {"complete", true},
          {"device", {{"id", device.backend == "cuda" ? "cuda:0" : "opencl:0:0"}, {"backend", device.backend}, {"name", device.name},
                      {"vendor", device.vendor}, {"platform", device.backend == "cuda" ? "CUDA" : "Portable Computing Language"},
                      {"kind", device.backend == "cuda" ? "gpu" : "cpu"}, {"driver_version", "1"}, {"arch", device.arch},
                      {"compute_units", 132}, {"clock_mhz", 1980}, {"global_mem_bytes", 1ULL << 37}}},
          {"backend", device.backend},
          {"spec", {{"path", "configs/" + spec + ".json"}, {"name", spec}, {"sha256", "ab12"}, {"operation", "attention"}, {"shape_filter", ""}}},
          {"sources", {{device.backend, {{"path", "kernels/" + spec}, {"sha256", "cd34"}}}}},
          {"settings", {{"seed", 1}, {"timing", {{"warmup_runs", 2}, {"min_samples", 10}, {"max_noise", 0.005}, {"max_time_s", 1.0}}}}},
          {"groups", out_groups}};
}

}  // namespace attn::test

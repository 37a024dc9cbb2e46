#include "tests/export/leaderboard_fixture.hpp"

#include "tuner/record/leaderboard.hpp"
#include "tuner/record/leaderboard_model.hpp"

namespace attn::test {

const FixtureDevice kH200{"NVIDIA H200", "cuda", "sm_90", "NVIDIA Corporation"};
const FixtureDevice kH100{"NVIDIA H100 80GB HBM3", "cuda", "sm_90", "NVIDIA Corporation"};
const FixtureDevice kA100{"NVIDIA A100-SXM4-80GB", "cuda", "sm_80", "NVIDIA Corporation"};
const FixtureDevice kPocl{"pthread-skylake-avx512-AMD EPYC", "opencl",
                          "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512", "AuthenticAMD"};

nlohmann::json attention_fields(const std::string& dtype, long long D, long long causal, long long Nq, long long Nkv) {
  return {{"dtype", dtype}, {"B", 1},           {"Hq", 8},     {"Hkv", 8},  {"Nq", Nq},   {"Nkv", Nkv},
          {"D", D},         {"causal", causal}, {"window", 0}, {"mask", 0}, {"sinks", 0}, {"max_bias", 0.0}};
}

namespace {

ConfigResult result_of(const FixtureGroup& g, const FixtureEntry& e, double flops, double bytes) {
  ConfigResult r;
  r.job.kernel = g.kernel;
  r.job.shape = g.shape;
  r.job.config.assign(e.params.begin(), e.params.end());
  r.status = status_from_name(e.status);
  r.reason = e.reason;
  r.compile_ms = 12.0;
  r.resources["k"].private_mem_bytes = 256;
  r.resources["k"].static_local_bytes = 8192;
  if (r.status == Status::ok) {
    const double m = e.median_ms, spread = e.noise * m;
    SampleStats t;
    t.samples = 20;
    t.median_ms = m;
    t.min_ms = m - spread;
    t.max_ms = m + 2 * spread;
    t.mean_ms = m;
    t.q1_ms = m - 0.6745 * spread;
    t.q3_ms = m + 0.6745 * spread;
    t.stddev_ms = spread;
    t.rel_noise = e.noise;
    t.converged = true;
    t.wall_s = 0.1;
    r.timing = t;
    r.gflops = flops / (m * 1e6);
    r.gbps = bytes / (m * 1e6);
    r.flops = flops;
    r.bytes = bytes;
    r.verify = VerifyReport{true, 2e-6, 1e-5, 64, 64, 0, ""};
  }
  r.checks = e.checks;
  return r;
}

DeviceInfo device_info(const FixtureDevice& device) {
  const bool cuda = device.backend == "cuda";
  DeviceInfo d;
  d.id = cuda ? "cuda:0" : "opencl:0:0";
  d.backend = device.backend;
  d.name = device.name;
  d.vendor = device.vendor;
  d.platform = cuda ? "CUDA" : "Portable Computing Language";
  d.kind = cuda ? "gpu" : "cpu";
  d.driver_version = "1";
  d.arch = device.arch;
  d.compute_units = 132;
  d.clock_mhz = 1980;
  d.global_mem_bytes = 1ULL << 37;
  return d;
}

}  // namespace

nlohmann::json fixture_leaderboard(const FixtureDevice& device, const std::string& spec,
                                   const std::vector<FixtureGroup>& groups) {
  Leaderboard lb;
  lb.attn_tune_version = "0.1.0";
  lb.git_commit = "fixture";
  lb.created_utc = lb.started_utc = "2026-11-21T00:00:00Z";
  lb.command = "attn-tune sweep fixture.json";
  lb.device = device_info(device);
  lb.spec_path = "configs/" + spec + ".json";
  lb.spec_name = spec;
  lb.spec_sha256 = "ab12";
  lb.operation = "attention";
  lb.sources.push_back({device.backend, "kernels/" + spec, "cd34"});
  for (const auto& g : groups) {
    const double nq = g.shape_fields.at("Nq").get<double>(), nkv = g.shape_fields.at("Nkv").get<double>();
    const double d = g.shape_fields.at("D").get<double>();
    const double flops = 4 * 8 * nq * nkv * d, bytes = 8 * (3 * nkv + nq) * d * 2;
    std::vector<ConfigResult> results;
    for (const auto& e : g.entries) results.push_back(result_of(g, e, flops, bytes));
    // The baseline preset goes on the middle entry, when it is ok.
    results = ranked(std::move(results));
    if (!g.baseline_preset.empty() && !results.empty() && results[results.size() / 2].status == Status::ok)
      results[results.size() / 2].job.preset = g.baseline_preset;
    lb.groups.push_back(ranked_group(g.kernel, g.shape, g.shape_fields, std::move(results), {}, g.baseline_preset));
  }
  return lb;
}

}  // namespace attn::test

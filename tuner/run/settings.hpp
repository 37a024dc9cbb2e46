// How a sweep measures: timing stopping rules, isolation, inputs' seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

// Cold-cache timing in the manner of nvbench: flush the cache, time one run
// with device events, repeat until the samples' relative standard deviation
// is under max_noise (after min_samples) or the time budget is spent.
struct TimingSettings {
  int warmup_runs = 2;        // untimed runs after the verified one
  int min_samples = 10;
  int max_samples = 1000;
  double max_noise = 0.005;   // stop once stddev/mean <= this (0.5%)
  double max_time_s = 1.0;    // after min_samples, stop sampling after this much wall time, converged or not
  double timeout_s = 15.0;    // stop sampling after this much wall time even before min_samples (slow kernels)
  bool flush_cache = true;    // evict the last-level cache before every sample

  nlohmann::json to_json() const;
  static TimingSettings from_json(const nlohmann::json& j);
};

// Bitwise determinism checks (seed 003) run on every configuration that verified.
struct DeterminismSettings {
  bool enabled = false;
  int runs = 5;  // cross-run: the same inputs this many times
  std::vector<int> batch_sizes{2, 8, 33};  // batch invariance: compared with B=1
  int cache_growth_steps = 4;              // decode positions one at a time vs at once; < 2 = off
  std::vector<std::string> require;        // checks a configuration must pass to rank ("deterministic", "batch_invariant")

  nlohmann::json to_json() const;
  static DeterminismSettings from_json(const nlohmann::json& j);
};

struct RunSettings {
  std::uint64_t seed = 1;       // inputs are drawn from it; recorded in every result file
  TimingSettings timing;
  DeterminismSettings determinism;
  bool isolate = true;          // run configurations in a worker process
  double watchdog_s = 120;      // a configuration running longer is recorded `timeout`
  double prepare_timeout_s = 1800;  // inputs + CPU reference of one shape

  nlohmann::json to_json() const;
  static RunSettings from_json(const nlohmann::json& j);
};

}  // namespace attn

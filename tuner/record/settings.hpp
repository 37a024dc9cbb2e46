// How a sweep measures: timing stopping rules, isolation, inputs' seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/cache/cache_settings.hpp"
#include "tuner/device/device.hpp"
#include "tuner/record/measure_settings.hpp"
#include "tuner/record/tie_settings.hpp"

namespace attn {

// How one sample is taken; part of a result's identity (docs/timing.md): the
// gate and export never compare results of different policies.
enum class TimingPolicy {
  cold,   // the last-level cache evicted before each sample (an inference step after other work)
  warm,   // back-to-back samples, the inputs left in the cache
  graph,  // as cold, but the launches are captured once in a CUDA graph and replayed (CUDA only)
};

const char* timing_policy_name(TimingPolicy p);
// Throws UsageError naming the accepted policies.
TimingPolicy timing_policy_from_name(const std::string& name);

// Timing in the manner of nvbench: warm up under load, then (cold) flush the
// cache and time one run with device events, repeat until the samples'
// relative standard deviation is under max_noise (after min_samples) or the
// time budget is spent. Samples taken below min_clock_ratio of the device's
// maximum SM clock are discarded (docs/timing.md).
struct TimingSettings {
  TimingPolicy policy = TimingPolicy::cold;
  int warmup_runs = 2;    // untimed runs after the verified one (at least)
  double warmup_s = 0.5;  // GPUs: and untimed runs until this much wall time, so the power controller
                          // has lowered the boost clock before sampling (docs/timing.md)
  int min_samples = 10;
  int max_samples = 1000;
  double max_noise = 0.005;       // stop once stddev/mean <= this (0.5%)
  double max_time_s = 1.0;        // after min_samples, stop sampling after this much wall time, converged or not
  double timeout_s = 15.0;        // stop sampling after this much wall time even before min_samples (slow kernels)
  double min_clock_ratio = 0.75;  // a sample under this share of the max SM clock is throttled: discarded
  int max_throttled_retries = 3;  // recovery pauses before the result is marked throttled
  double recovery_s = 0.5;        // how long each pause lets the device cool

  bool flush_cache() const { return policy != TimingPolicy::warm; }

  // Hand-written: reads files from before policies (only `flush_cache`) and before warm-up by time, and an
  // unknown policy is a UsageError naming the accepted ones.
  nlohmann::json to_json() const;
  static TimingSettings from_json(const nlohmann::json& j);
};

// Bitwise determinism checks run on every configuration that verified.
struct DeterminismSettings {
  bool enabled = false;
  int runs = 5;                            // cross-run: the same inputs this many times
  std::vector<int> batch_sizes{2, 8, 33};  // batch invariance: compared with B=1
  int cache_growth_steps = 4;              // decode positions one at a time vs at once; < 2 = off
  std::vector<std::string> require;        // checks a configuration must pass to rank ("deterministic", "batch_invariant")

  nlohmann::json to_json() const;  // the macro's below
  static DeterminismSettings from_json(const nlohmann::json& j);
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeterminismSettings, enabled, runs, batch_sizes, cache_growth_steps, require)

// Throws UsageError when TIMING's policy cannot run on DEVICE: graph needs a device that can capture launches
// (DeviceInfo::can_capture). Checked before any process starts, and by the evaluator.
void require_timing_policy_runs_on(const TimingSettings& timing, const DeviceInfo& device);

struct RunSettings {
  std::uint64_t seed = 1;   // inputs are drawn from it; recorded in every result file
  TimingSettings timing;    // the full measurement: thorough sweeps, confirmations, bench
  MeasureSettings measure;  // staged or thorough, and the stages' settings
  DeterminismSettings determinism;
  bool isolate = true;                 // run configurations in a worker process
  double watchdog_s = 120;             // a configuration running longer is recorded `timeout`
  double prepare_timeout_s = 1800;     // inputs + CPU reference of one shape
  TieSettings ties;                    // configurations within noise of the best
  CompileCacheSettings compile_cache;  // compiled kernels kept on disk between runs

  // Hand-written: a file without `measure` predates stages and reads as thorough, not as the default (staged).
  nlohmann::json to_json() const;
  static RunSettings from_json(const nlohmann::json& j);
};

}  // namespace attn

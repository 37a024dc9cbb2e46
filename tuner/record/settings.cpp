#include "tuner/record/settings.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

const char* timing_policy_name(TimingPolicy p) {
  switch (p) {
    case TimingPolicy::cold: return "cold";
    case TimingPolicy::warm: return "warm";
    case TimingPolicy::graph: return "graph";
  }
  return "cold";
}

TimingPolicy timing_policy_from_name(const std::string& name) {
  for (TimingPolicy p : {TimingPolicy::cold, TimingPolicy::warm, TimingPolicy::graph})
    if (name == timing_policy_name(p)) return p;
  throw UsageError(fmt::format("unknown timing policy '{}' (cold, warm or graph)", name));
}

void require_timing_policy_runs_on(const TimingSettings& timing, const DeviceInfo& device) {
  if (timing.policy == TimingPolicy::graph && !device.can_capture)
    throw UsageError(
        fmt::format("--timing graph replays captured launches (CUDA graphs); device {} ({}) cannot "
                    "capture them (use --timing cold or warm)",
                    device.id, device.backend));
}

nlohmann::json TimingSettings::to_json() const {
  return {{"policy", timing_policy_name(policy)},
          {"warmup_runs", warmup_runs},
          {"warmup_s", warmup_s},
          {"min_samples", min_samples},
          {"max_samples", max_samples},
          {"max_noise", max_noise},
          {"max_time_s", max_time_s},
          {"timeout_s", timeout_s},
          {"flush_cache", flush_cache()},
          {"min_clock_ratio", min_clock_ratio},
          {"max_throttled_retries", max_throttled_retries},
          {"recovery_s", recovery_s}};
}

TimingSettings TimingSettings::from_json(const nlohmann::json& j) {
  TimingSettings t;
  t.warmup_runs = j.value("warmup_runs", t.warmup_runs);
  t.min_samples = j.value("min_samples", t.min_samples);
  t.max_samples = j.value("max_samples", t.max_samples);
  t.max_noise = j.value("max_noise", t.max_noise);
  t.max_time_s = j.value("max_time_s", t.max_time_s);
  t.timeout_s = j.value("timeout_s", t.timeout_s);
  // Files written before policies existed say only whether the cache was flushed.
  if (j.contains("policy")) t.policy = timing_policy_from_name(j.at("policy").get<std::string>());
  else t.policy = j.value("flush_cache", true) ? TimingPolicy::cold : TimingPolicy::warm;
  // Before warm-up by time, warm-up was only a count: such files read 0 s.
  t.warmup_s = j.value("warmup_s", 0.0);
  t.min_clock_ratio = j.value("min_clock_ratio", t.min_clock_ratio);
  t.max_throttled_retries = j.value("max_throttled_retries", t.max_throttled_retries);
  t.recovery_s = j.value("recovery_s", t.recovery_s);
  return t;
}

nlohmann::json DeterminismSettings::to_json() const { return *this; }

DeterminismSettings DeterminismSettings::from_json(const nlohmann::json& j) { return j.get<DeterminismSettings>(); }

nlohmann::json RunSettings::to_json() const {
  return {{"seed", seed},
          {"timing", timing.to_json()},
          {"measure", measure},
          {"determinism", determinism},
          {"isolate", isolate},
          {"watchdog_s", watchdog_s},
          {"prepare_timeout_s", prepare_timeout_s},
          {"compile_cache", compile_cache},
          {"ties", ties}};
}

RunSettings RunSettings::from_json(const nlohmann::json& j) {
  RunSettings s;
  s.seed = j.value("seed", s.seed);
  if (j.contains("timing")) s.timing = TimingSettings::from_json(j.at("timing"));
  // Written before stages existed: every configuration was measured in full.
  s.measure = j.contains("measure") ? j.at("measure").get<MeasureSettings>() : MeasureSettings{MeasureMode::thorough};
  s.determinism = j.value("determinism", s.determinism);
  s.isolate = j.value("isolate", s.isolate);
  s.watchdog_s = j.value("watchdog_s", s.watchdog_s);
  s.prepare_timeout_s = j.value("prepare_timeout_s", s.prepare_timeout_s);
  s.compile_cache = j.value("compile_cache", s.compile_cache);
  s.ties = j.value("ties", s.ties);
  return s;
}

}  // namespace attn

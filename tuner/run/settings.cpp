#include "tuner/run/settings.hpp"

namespace attn {

nlohmann::json TimingSettings::to_json() const {
  return {{"warmup_runs", warmup_runs}, {"min_samples", min_samples}, {"max_samples", max_samples},
          {"max_noise", max_noise},     {"max_time_s", max_time_s},   {"timeout_s", timeout_s},
          {"flush_cache", flush_cache}};
}

TimingSettings TimingSettings::from_json(const nlohmann::json& j) {
  TimingSettings t;
  t.warmup_runs = j.value("warmup_runs", t.warmup_runs);
  t.min_samples = j.value("min_samples", t.min_samples);
  t.max_samples = j.value("max_samples", t.max_samples);
  t.max_noise = j.value("max_noise", t.max_noise);
  t.max_time_s = j.value("max_time_s", t.max_time_s);
  t.timeout_s = j.value("timeout_s", t.timeout_s);
  t.flush_cache = j.value("flush_cache", t.flush_cache);
  return t;
}

nlohmann::json DeterminismSettings::to_json() const {
  return {{"enabled", enabled}, {"runs", runs}, {"batch_sizes", batch_sizes}, {"cache_growth_steps", cache_growth_steps},
          {"require", require}};
}

DeterminismSettings DeterminismSettings::from_json(const nlohmann::json& j) {
  DeterminismSettings d;
  d.enabled = j.value("enabled", d.enabled);
  d.runs = j.value("runs", d.runs);
  d.batch_sizes = j.value("batch_sizes", d.batch_sizes);
  d.cache_growth_steps = j.value("cache_growth_steps", d.cache_growth_steps);
  d.require = j.value("require", d.require);
  return d;
}

nlohmann::json RunSettings::to_json() const {
  return {{"seed", seed},
          {"timing", timing.to_json()},
          {"determinism", determinism.to_json()},
          {"isolate", isolate},
          {"watchdog_s", watchdog_s},
          {"prepare_timeout_s", prepare_timeout_s}};
}

RunSettings RunSettings::from_json(const nlohmann::json& j) {
  RunSettings s;
  s.seed = j.value("seed", s.seed);
  if (j.contains("timing")) s.timing = TimingSettings::from_json(j.at("timing"));
  if (j.contains("determinism")) s.determinism = DeterminismSettings::from_json(j.at("determinism"));
  s.isolate = j.value("isolate", s.isolate);
  s.watchdog_s = j.value("watchdog_s", s.watchdog_s);
  s.prepare_timeout_s = j.value("prepare_timeout_s", s.prepare_timeout_s);
  return s;
}

}  // namespace attn

#include "tuner/measure/stage_timing.hpp"

#include <algorithm>

namespace attn {

MeasureStep first_step(const MeasureSettings& measure) { return {measure.staged() ? Stage::screen : Stage::thorough, 0}; }

TimingSettings stage_timing(const TimingSettings& full, const MeasureSettings& measure, const MeasureStep& step) {
  TimingSettings t = full;
  if (step.stage == Stage::screen) {
    t.min_samples = std::max(1, std::min(full.min_samples, measure.screen_min_samples));
    t.max_samples = std::max(t.min_samples, measure.screen_samples);
    t.max_time_s = measure.screen_time_s;
  } else if (step.stage == Stage::race) {
    const long long wanted = static_cast<long long>(std::max(1, measure.screen_samples)) << std::min(step.round + 1, 20);
    t.min_samples = t.max_samples = static_cast<int>(std::min<long long>(wanted, std::max(1, full.max_samples)));
  }
  return t;
}

bool warm_up_by_time(const MeasureSettings& measure, const MeasureStep& step, bool gpu, double idle_s, Stage previous) {
  if (!gpu) return false;
  if (!measure.staged() || step.stage == Stage::thorough) return true;
  if (step.stage == Stage::confirm && previous != Stage::confirm) return true;
  return idle_s < 0 || idle_s > measure.idle_gap_s;
}

}  // namespace attn

#include "tuner/measure/sampler.hpp"

namespace attn {

Samples take_samples(const SampleSource& source, const TimingSettings& t, StoppingCriterion& stop) {
  // Warm-up is the same work as a sample. On a GPU it lasts warmup_s too: a GPU coming from idle (compile,
  // verification) runs at its boost clock until its power controller catches up, tens of milliseconds later.
  Samples out;
  auto warm_up = [&] {
    const double begin = source.now_s();
    for (int i = 0; i < t.warmup_runs || (source.warm_by_time && source.now_s() - begin < t.warmup_s); ++i) source.run();
    out.warmup_s += source.now_s() - begin;
  };
  warm_up();

  int pauses = 0;
  double last_discarded_ms = 0;
  const double start = source.now_s();
  while (true) {
    const double ms = source.run();
    const std::optional<ClockReading> clock = source.clocks();
    const bool slow = clock && clock->expected_sm_mhz > 0 && clock->sm_mhz < t.min_clock_ratio * clock->expected_sm_mhz;
    if (slow && !out.throttled && pauses < t.max_throttled_retries) {
      ++out.discarded;
      ++pauses;
      last_discarded_ms = ms;
      source.pause(t.recovery_s);
      warm_up();
    } else {
      if (slow) out.throttled = true;
      out.ms.push_back(ms);
      if (clock) out.readings.push_back(*clock);
      stop.add(ms);
    }
    out.wall_s = source.now_s() - start;
    if (stop.done(out.wall_s)) break;
  }
  if (out.ms.empty()) {  // out of time with every sample discarded
    out.ms.push_back(last_discarded_ms);
    out.throttled = true;
  }
  out.converged = stop.converged();
  return out;
}

}  // namespace attn

// The timed samples of one configuration: warm-up, a clock check after each sample, and a stopping criterion.
// The device is reached through SampleSource only, so that tests drive the loop with a fake one.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/measure/stopping_criterion.hpp"
#include "tuner/record/settings.hpp"

namespace attn {

struct SampleSource {
  std::function<double()> run;                          // one run, timed (ms); warm-up runs are the same work
  std::function<std::optional<ClockReading>()> clocks;  // right after a run; none where the device cannot say
  std::function<void(double seconds)> pause;            // lets a throttled device recover
  std::function<double()> now_s;                        // a monotonic clock, in seconds
  bool warm_by_time = false;                            // GPUs: warm up for warmup_s too, not only warmup_runs
};

struct Samples {
  std::vector<double> ms;              // the kept samples
  std::vector<ClockReading> readings;  // the clocks after each kept sample
  int discarded = 0;                   // taken under min_clock_ratio of the expected clock and dropped
  bool throttled = false;              // clean samples could not be had: some kept ones are throttled
  bool converged = false;              // STOP's target was met
  double wall_s = 0;                   // time spent sampling, warm-up excluded
  double warmup_s = 0;                 // time spent warming up, recovery pauses included
};

// As nvbench: a sample taken well under the expected clock is discarded and the device given recovery_s to
// recover, max_throttled_retries times; after that the slow samples are kept and the result says so.
Samples take_samples(const SampleSource& source, const TimingSettings& timing, StoppingCriterion& stop);

}  // namespace attn

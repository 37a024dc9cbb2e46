// The timing settings of each measurement stage (record/measure_settings.hpp), derived from the full ones.
#pragma once

#include "tuner/record/settings.hpp"

namespace attn {

// The first evaluation of a configuration: a screen in a staged sweep, the full measurement in a thorough one.
MeasureStep first_step(const MeasureSettings& measure);

// FULL for confirmations and thorough measurements. A screen takes screen_min_samples, then stops at
// screen_samples or after screen_time_s. Race round R takes screen_samples * 2^(R+1) samples (at most FULL's
// max_samples), stopping sooner only on FULL's timeout.
TimingSettings stage_timing(const TimingSettings& full, const MeasureSettings& measure, const MeasureStep& step);

// Whether a GPU is warmed up for warmup_s before this timing. The device state is kept per sweep, not per
// configuration: in a staged sweep, when this process first times (IDLE_S < 0), after an idle gap, and when the
// confirmations begin (PREVIOUS, the stage timed last, is not a confirmation): screens and race rounds are short
// bursts with verification between them, confirmations are measured at the sustained clock, one after the other.
// Otherwise the samples of one configuration follow the last one's. Thorough: before every timing.
bool warm_up_by_time(const MeasureSettings& measure, const MeasureStep& step, bool gpu, double idle_s, Stage previous);

}  // namespace attn

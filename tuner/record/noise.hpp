// The one definition of "within the noise". A measurement's noise is measurement_noise(): the samples' robust
// spread (IQR / 1.349 / median; stddev / mean below 4 samples). Two measurements are held against their noise
// band, sqrt(noise(a)^2 + noise(b)^2). The rule serves, with no other definition beside it:
//   - the stop rule (measure/stopping_criterion.hpp): sampling stops once noise <= the target;
//   - ties (record/ties.hpp): candidates and tied sets lie within `noise_multiple` bands of the fastest;
//   - the table (record/leaderboard_table.cpp): "~#k" and the speed-up it claims, within one band;
//   - the gate (gate/gate_rules.hpp): a change beyond the threshold but within one band is UNCERTAIN.
#pragma once

#include "tuner/record/stats.hpp"

namespace attn {

// A measurement as the rule sees it: its median and its relative noise.
struct NoisyTime {
  double median_ms = 0;
  double noise = 0;
};

double measurement_noise(const SampleStats& timing);
NoisyTime noisy_time(const SampleStats& timing);

double noise_band(double noise_a, double noise_b);
double noise_band(const SampleStats& a, const SampleStats& b);

// How far apart two times are, as the larger over the smaller minus 1: twice as slow and twice as fast are
// both 1.0.
double relative_gap(double a_ms, double b_ms);

// Whether A and B are within MULTIPLE noise bands of each other.
bool within_noise(const NoisyTime& a, const NoisyTime& b, double multiple = 1.0);
bool within_noise(const SampleStats& a, const SampleStats& b, double multiple = 1.0);

}  // namespace attn

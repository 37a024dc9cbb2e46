#include "tuner/record/noise.hpp"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// Normal samples: IQR = 1.349 standard deviations.
constexpr double kIqrPerSigma = 1.349;

}  // namespace

double measurement_noise(const SampleStats& t) {
  if (t.samples >= 4 && t.median_ms > 0 && t.q3_ms > t.q1_ms) return (t.q3_ms - t.q1_ms) / (kIqrPerSigma * t.median_ms);
  return t.rel_noise;
}

NoisyTime noisy_time(const SampleStats& t) { return {t.median_ms, measurement_noise(t)}; }

double noise_band(double noise_a, double noise_b) { return std::hypot(noise_a, noise_b); }

double noise_band(const SampleStats& a, const SampleStats& b) {
  return noise_band(measurement_noise(a), measurement_noise(b));
}

double relative_gap(double a_ms, double b_ms) {
  const double lo = std::min(a_ms, b_ms), hi = std::max(a_ms, b_ms);
  return lo > 0 ? hi / lo - 1 : INFINITY;
}

bool within_noise(const NoisyTime& a, const NoisyTime& b, double multiple) {
  return relative_gap(a.median_ms, b.median_ms) <= multiple * noise_band(a.noise, b.noise);
}

bool within_noise(const SampleStats& a, const SampleStats& b, double multiple) {
  return within_noise(noisy_time(a), noisy_time(b), multiple);
}

}  // namespace attn

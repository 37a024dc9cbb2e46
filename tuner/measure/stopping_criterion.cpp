#include "tuner/measure/stopping_criterion.hpp"

#include "tuner/record/noise.hpp"

namespace attn {

void NoiseTarget::add(double sample_ms) {
  samples_.push_back(sample_ms);
  const int n = static_cast<int>(samples_.size());
  if (n >= timing_.min_samples && measurement_noise(SampleStats::of(samples_)) <= timing_.max_noise) converged_ = true;
}

bool NoiseTarget::done(double wall_s) const {
  const int n = static_cast<int>(samples_.size());
  return converged_ || n >= timing_.max_samples || (n >= timing_.min_samples && wall_s >= timing_.max_time_s) ||
         wall_s >= timing_.timeout_s;
}

}  // namespace attn

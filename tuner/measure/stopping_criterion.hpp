// When to stop sampling one configuration, as nvbench's stopping criteria: the criterion sees each kept
// sample and the wall time spent sampling, and says whether to go on.
#pragma once

#include <vector>

#include "tuner/record/settings.hpp"

namespace attn {

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  virtual void add(double sample_ms) = 0;
  // Whether sampling is done after WALL_S seconds of it.
  virtual bool done(double wall_s) const = 0;
  // Whether the measurement met its target (rather than stopping on a limit).
  virtual bool converged() const = 0;
};

// The default: after min_samples, stop once the samples' noise (record/noise.hpp, the rule ties, the table and
// the gate hold times against) is at most max_noise; or at max_samples, at max_time_s after min_samples, or
// at timeout_s whatever the count (a slow kernel).
class NoiseTarget final : public StoppingCriterion {
 public:
  explicit NoiseTarget(const TimingSettings& timing) : timing_(timing) {}
  void add(double sample_ms) override;
  bool done(double wall_s) const override;
  bool converged() const override { return converged_; }

 private:
  TimingSettings timing_;
  std::vector<double> samples_;
  bool converged_ = false;
};

}  // namespace attn

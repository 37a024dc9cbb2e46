// Summary statistics of timing samples.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

struct SampleStats {
  int samples = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0;
  double q1_ms = 0, q3_ms = 0;  // quartiles (linear interpolation)
  double stddev_ms = 0;
  double rel_noise = 0;    // stddev / mean
  bool converged = false;  // the noise target was met
  double wall_s = 0;       // time spent sampling

  static SampleStats of(std::vector<double> samples_ms);
  nlohmann::json to_json() const;
  static SampleStats from_json(const nlohmann::json& j);
};

// The median of VALUES: the middle one, or the mean of the two middle ones (0 when empty).
double median(std::vector<double> values);

// Relative standard deviation of SAMPLES (0 for fewer than two).
double relative_stddev(const std::vector<double>& samples);

}  // namespace attn

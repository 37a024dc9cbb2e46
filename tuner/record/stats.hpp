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
  nlohmann::json to_json() const;                         // the macro's below
  static SampleStats from_json(const nlohmann::json& j);  // missing fields read as a default SampleStats
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SampleStats, samples, median_ms, min_ms, max_ms, mean_ms, q1_ms, q3_ms,
                                                stddev_ms, rel_noise, converged, wall_s)

// The median of VALUES: the middle one, or the mean of the two middle ones (0 when empty).
double median(std::vector<double> values);

// Relative standard deviation of SAMPLES (0 for fewer than two).
double relative_stddev(const std::vector<double>& samples);

}  // namespace attn

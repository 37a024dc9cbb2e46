#include "tuner/record/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double relative_stddev(const std::vector<double>& s) {
  if (s.size() < 2) return 0;
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
  double var = 0;
  for (double x : s) var += (x - mean) * (x - mean);
  var /= double(s.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0;
}

SampleStats SampleStats::of(std::vector<double> s) {
  SampleStats r;
  r.samples = static_cast<int>(s.size());
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  r.min_ms = s.front();
  r.max_ms = s.back();
  r.median_ms = quantile(s, 0.5);
  r.q1_ms = quantile(s, 0.25);
  r.q3_ms = quantile(s, 0.75);
  r.mean_ms = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
  r.rel_noise = relative_stddev(s);
  r.stddev_ms = r.rel_noise * r.mean_ms;
  return r;
}

nlohmann::json SampleStats::to_json() const {
  return {{"samples", samples},     {"median_ms", median_ms}, {"min_ms", min_ms}, {"max_ms", max_ms},
          {"mean_ms", mean_ms},     {"q1_ms", q1_ms},         {"q3_ms", q3_ms},   {"stddev_ms", stddev_ms},
          {"rel_noise", rel_noise}, {"converged", converged}, {"wall_s", wall_s}};
}

SampleStats SampleStats::from_json(const nlohmann::json& j) {
  SampleStats r;
  r.samples = j.value("samples", 0);
  r.median_ms = j.value("median_ms", 0.0);
  r.min_ms = j.value("min_ms", 0.0);
  r.max_ms = j.value("max_ms", 0.0);
  r.mean_ms = j.value("mean_ms", 0.0);
  r.q1_ms = j.value("q1_ms", 0.0);
  r.q3_ms = j.value("q3_ms", 0.0);
  r.stddev_ms = j.value("stddev_ms", 0.0);
  r.rel_noise = j.value("rel_noise", 0.0);
  r.converged = j.value("converged", false);
  r.wall_s = j.value("wall_s", 0.0);
  return r;
}

}  // namespace attn

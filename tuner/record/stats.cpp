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

nlohmann::json SampleStats::to_json() const { return *this; }

SampleStats SampleStats::from_json(const nlohmann::json& j) { return j.get<SampleStats>(); }

}  // namespace attn

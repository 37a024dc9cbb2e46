#include "tuner/gate/recheck.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/record/stats.hpp"

namespace attn {

bool RecheckRow::within(double tolerance) const {
  return failure.empty() && !retimed_ms.empty() && std::abs(difference) <= tolerance;
}

int RecheckReport::failures() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [&](const RecheckRow& r) { return !r.within(tolerance); }));
}

RecheckReport run_recheck(const RecheckInput& in) {
  if (!in.recorded) throw UsageError("--recheck needs a leaderboard");
  if (in.rounds < 1) throw UsageError("--rounds must be at least 1");
  RecheckReport report;
  report.tolerance = in.tolerance;
  report.rounds = in.rounds;
  for (const auto& group : in.recorded->groups) {
    const auto ranked = group.ranked();
    const std::size_t n = in.top <= 0 ? ranked.size() : std::min<std::size_t>(ranked.size(), in.top);
    const std::size_t first = report.rows.size();
    for (std::size_t i = 0; i < n; ++i) {
      RecheckRow row;
      row.kernel = group.kernel;
      row.shape = group.shape;
      row.key = config_key(ranked[i]->job.config);
      row.rank = static_cast<int>(i) + 1;
      row.recorded_ms = ranked[i]->timing->median_ms;
      report.rows.push_back(row);
    }
    for (int round = 1; round <= in.rounds; ++round)
      for (std::size_t i = 0; i < n; ++i) {
        RecheckRow& row = report.rows[first + i];
        if (in.log) in.log(fmt::format("round {} of {}: {} / {} / {}", round, in.rounds, row.kernel, row.shape, row.key));
        const ConfigResult now = in.measure(ranked[i]->job);
        if (now.status == Status::ok && now.timing) row.retimed_ms.push_back(now.timing->median_ms);
        else if (row.failure.empty()) row.failure = fmt::format("{}: {}", status_name(now.status), now.reason);
      }
    for (std::size_t i = first; i < report.rows.size(); ++i) {
      RecheckRow& row = report.rows[i];
      if (row.retimed_ms.empty()) continue;
      row.retimed_median_ms = median(row.retimed_ms);
      row.difference = row.recorded_ms > 0 ? row.retimed_median_ms / row.recorded_ms - 1 : 0;
    }
  }
  return report;
}

std::string recheck_table(const RecheckReport& report) {
  std::string out = fmt::format("{:<24} {:<24} {:>4} {:>12} {:>12} {:>8}  {}\n", "kernel", "shape", "rank", "recorded ms",
                                "re-timed ms", "diff", "configuration");
  for (const auto& r : report.rows) {
    const std::string verdict = r.within(report.tolerance) ? "ok" : "DIFFERS";
    if (!r.failure.empty())
      out += fmt::format("{:<24} {:<24} {:>4} {:>12.5f} {:>12} {:>8}  {}  FAILED: {}\n", r.kernel, r.shape, r.rank,
                         r.recorded_ms, "-", "-", r.key, r.failure);
    else
      out += fmt::format("{:<24} {:<24} {:>4} {:>12.5f} {:>12.5f} {:>+7.2f}%  {}  {}\n", r.kernel, r.shape, r.rank,
                         r.recorded_ms, r.retimed_median_ms, 100 * r.difference, r.key, verdict);
  }
  out += fmt::format(
      "{} of {} configurations within {:.1f}% of their recorded median (median of {} interleaved "
      "rounds)\n",
      static_cast<int>(report.rows.size()) - report.failures(), report.rows.size(), 100 * report.tolerance, report.rounds);
  return out;
}

}  // namespace attn

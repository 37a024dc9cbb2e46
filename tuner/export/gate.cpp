#include "tuner/export/gate.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/export/timing_policy_check.hpp"

namespace attn {
namespace {

bool worth_another_look(Verdict v) { return v == Verdict::uncertain || v == Verdict::slower; }

void log(const GateInput& in, const std::string& line) {
  if (in.log) in.log(line);
}

GateComparison compare(const GateInput& in, const LeaderboardGroup& group, const ConfigResult& baseline, int rank,
                       const LeaderboardGroup* candidate_group) {
  GateComparison c;
  c.kernel = group.kernel;
  c.shape = group.shape;
  c.key = config_key(baseline.job.config);
  c.preset = baseline.job.preset;
  c.baseline_rank = rank;
  c.baseline = baseline;
  const std::string what = fmt::format("{} / {} / {}", c.kernel, c.shape, c.key);

  if (in.candidate) {
    if (const ConfigResult* found = candidate_group ? candidate_group->find(c.key) : nullptr) c.candidate = *found;
  } else {
    log(in, fmt::format("measuring {}", what));
    c.candidate = in.measure(baseline.job);
    c.measured = 1;
  }
  c.judgement = judge(c.baseline, c.candidate ? &*c.candidate : nullptr, in.rules);

  for (int again = 1; in.measure && worth_another_look(c.judgement.verdict) && again <= in.rules.remeasure_limit; ++again) {
    log(in, fmt::format("measuring {} again ({} of {}{}): {}", what, again, in.rules.remeasure_limit,
                        in.measure_baseline ? ", with the baseline's code" : "", c.judgement.why));
    if (in.measure_baseline) {
      ConfigResult now = in.measure_baseline(baseline.job);
      ++c.baseline_measured;
      // The baseline's code failing now is not the candidate's doing: keep the recorded figures then.
      if (now.status == Status::ok && now.timing) c.baseline = std::move(now);
    }
    c.candidate = in.measure(baseline.job);
    ++c.measured;
    c.judgement = judge(c.baseline, &*c.candidate, in.rules);
  }
  return c;
}

}  // namespace

int GateReport::count(Verdict verdict) const {
  return static_cast<int>(std::count_if(comparisons.begin(), comparisons.end(),
                                        [&](const GateComparison& c) { return c.judgement.verdict == verdict; }));
}

int GateReport::failures() const {
  return static_cast<int>(std::count_if(comparisons.begin(), comparisons.end(),
                                        [&](const GateComparison& c) { return fails(c.judgement.verdict, rules); }));
}

GateReport run_gate(const GateInput& in) {
  if (!in.baseline) throw UsageError("the gate needs a baseline leaderboard");
  if (!in.candidate && !in.measure) throw UsageError("the gate needs a candidate leaderboard or a device to measure on");
  if (in.candidate) require_one_timing_policy({in.baseline, in.candidate}, "compare");

  GateReport report;
  report.rules = in.rules;
  report.top = in.top;
  report.baseline_label = in.baseline->label();
  report.candidate_label = in.candidate ? in.candidate->label() : "measured now";

  for (const auto& group : in.baseline->groups) {
    const auto ranked = group.ranked();
    if (ranked.empty()) {
      report.notes.push_back(fmt::format("{} / {}: nothing ranked in the baseline, nothing to compare", group.kernel, group.shape));
      continue;
    }
    const LeaderboardGroup* candidate_group = in.candidate ? in.candidate->find_group(group.kernel, group.shape) : nullptr;
    if (in.candidate && !candidate_group)
      report.notes.push_back(fmt::format("{} / {}: not in the candidate", group.kernel, group.shape));
    const std::size_t n = in.top <= 0 ? ranked.size() : std::min<std::size_t>(ranked.size(), in.top);
    for (std::size_t i = 0; i < n; ++i)
      report.comparisons.push_back(compare(in, group, *ranked[i], static_cast<int>(i) + 1, candidate_group));
  }
  if (in.candidate)
    for (const auto& group : in.candidate->groups)
      if (!in.baseline->find_group(group.kernel, group.shape))
        report.notes.push_back(fmt::format("{} / {}: only in the candidate, not compared", group.kernel, group.shape));
  return report;
}

}  // namespace attn

#include "tuner/gate/gate.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/gate/timing_policy_check.hpp"

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

  // With the baseline's code, pairs alternate which code goes first (baseline then candidate,
  // then candidate then baseline, ...), so that a machine speeding up or slowing down over the
  // pairs, or favouring whichever runs first, weighs on both alike; all pairs are judged together.
  std::vector<MeasuredPair> pairs;
  for (int again = 1; in.measure && worth_another_look(c.judgement.verdict) && again <= in.rules.remeasure_limit; ++again) {
    log(in, fmt::format("measuring {} again ({} of {}{}): {}", what, again, in.rules.remeasure_limit,
                        in.measure_baseline ? ", in a pair with the baseline's code" : "", c.judgement.why));
    if (!in.measure_baseline) {
      c.candidate = in.measure(baseline.job);
      ++c.measured;
      c.judgement = judge(c.baseline, &*c.candidate, in.rules);
      continue;
    }
    const bool candidate_first = again % 2 == 0;
    if (candidate_first) c.candidate = in.measure(baseline.job);
    ConfigResult now = in.measure_baseline(baseline.job);
    ++c.baseline_measured;
    // The baseline's code failing now is not the candidate's doing: keep the recorded figures then.
    if (now.status == Status::ok && now.timing) c.baseline = std::move(now);
    if (!candidate_first) c.candidate = in.measure(baseline.job);
    ++c.measured;
    pairs.push_back({c.baseline, *c.candidate});
    c.judgement = judge_pairs(pairs, in.rules);
  }
  return c;
}

// A gate compares runs of the same kernels on the same shapes (the code may
// differ, and with it the spec's name): with no (kernel, shape) in common, or
// another operation, the two come from different specs and nothing compares.
void require_same_spec(const Leaderboard& baseline, const Leaderboard& candidate) {
  bool shared = false;
  for (const auto& g : baseline.groups) shared = shared || candidate.find_group(g.kernel, g.shape) != nullptr;
  if (baseline.operation == candidate.operation && (shared || baseline.groups.empty() || candidate.groups.empty())) return;
  const std::string why = baseline.operation == candidate.operation
                              ? "no (kernel, shape) in common"
                              : fmt::format("operations {} and {}", baseline.operation, candidate.operation);
  throw UsageError(
      fmt::format("the baseline and the candidate come from different specs ({} and {}: {}); the gate compares "
                  "runs of the same kernels on the same shapes",
                  baseline.spec_name, candidate.spec_name, why));
}

// A baseline where nothing ranked cannot pass anything: say why it has nothing.
void require_ranked_baseline(const Leaderboard& baseline) {
  std::map<std::string, int> counts;
  std::string first;
  for (const auto& g : baseline.groups) {
    if (!g.ranked().empty()) return;
    for (const auto& e : g.entries) {
      ++counts[e.excluded.empty() ? status_name(e.status) : "excluded"];
      if (first.empty() && (e.status != Status::ok || !e.excluded.empty()))
        first = fmt::format("{} / {} / {}: {}", g.kernel, g.shape, config_key(e.job.config),
                            e.excluded.empty() ? e.reason : e.excluded);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) parts.push_back(fmt::format("{} {}", n, status));
  throw Error(fmt::format("the baseline {} has no ranked result to compare with ({}){}: fix or re-run the baseline",
                          baseline.label(), parts.empty() ? "no results" : fmt::format("{}", fmt::join(parts, ", ")),
                          first.empty() ? "" : "; first: " + first));
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
  if (in.candidate) require_same_spec(*in.baseline, *in.candidate);
  require_ranked_baseline(*in.baseline);
  report.rules = in.rules;
  report.top = in.top;
  report.baseline_label = in.baseline->label();
  report.candidate_label = in.candidate ? in.candidate->label() : "measured now";

  for (const auto& group : in.baseline->groups) {
    const auto ranked = group.ranked();
    if (ranked.empty()) {
      report.notes.push_back(
          fmt::format("{} / {}: nothing ranked in the baseline, nothing to compare", group.kernel, group.shape));
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

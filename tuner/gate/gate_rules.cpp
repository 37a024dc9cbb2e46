#include "tuner/gate/gate_rules.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/record/check_results.hpp"
#include "tuner/record/noise.hpp"

namespace attn {
namespace {

std::string percent(double x) { return fmt::format("{:+.1f}%", 100 * x); }

// The clocks the two medians were taken at, where both runs recorded them and they differ by 1% or
// more: under a power cap a compute-bound kernel's time follows the SM clock (docs/timing.md), so a
// reader should know before blaming the code. It explains; it does not change the verdict.
std::string clock_note(const ConfigResult& baseline, const ConfigResult& candidate) {
  std::string note;
  if (baseline.clocks && candidate.clocks && baseline.clocks->sm_mhz_median > 0 && candidate.clocks->sm_mhz_median > 0) {
    const double b = baseline.clocks->sm_mhz_median, c = candidate.clocks->sm_mhz_median;
    if (std::abs(c / b - 1) >= 0.01)
      note =
          fmt::format("; SM clock {:.0f} -> {:.0f} MHz ({}): part of the change may be the clock", b, c, percent(c / b - 1));
  }
  if (candidate.clocks && candidate.clocks->throttled) note += "; the candidate was timed throttled";
  return note;
}

// How large a change RATIO - 1 is: the speedup's mirror image for ratios below 1, so that
// twice as slow and twice as fast are both 100%.
double size_of(double ratio) { return relative_gap(ratio, 1.0); }

// The timing verdict of a change RATIO held against BAND; NUMBERS opens the line that says why.
void judge_change(Judgement& j, double ratio, double band, const std::string& numbers, const GateRules& rules) {
  j.change = ratio - 1;
  j.band = band;
  const std::string line = fmt::format("{}, noise {:.1f}%, threshold {:.1f}%", numbers, 100 * band, 100 * rules.threshold);
  const double size = size_of(ratio);
  if (size <= rules.threshold) {
    j.verdict = Verdict::same;
    j.why = line + ": within the threshold";
  } else if (size <= band) {
    j.verdict = Verdict::uncertain;
    j.why = line + ": beyond the threshold but within the noise";
  } else {
    j.verdict = ratio > 1 ? Verdict::slower : Verdict::faster;
    j.why = line + ": beyond both";
  }
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "FASTER";
    case Verdict::same: return "SAME";
    case Verdict::slower: return "SLOWER";
    case Verdict::uncertain: return "UNCERTAIN";
    case Verdict::broken: return "BROKEN";
    case Verdict::nondeterministic: return "NONDETERMINISTIC";
    case Verdict::missing: return "MISSING";
  }
  return "?";
}

bool fails(Verdict v, const GateRules& rules) {
  switch (v) {
    case Verdict::faster:
    case Verdict::same: return false;
    case Verdict::uncertain: return rules.uncertain_fails;
    case Verdict::slower:
    case Verdict::broken:
    case Verdict::nondeterministic:
    case Verdict::missing: return true;
  }
  return true;
}

Judgement judge(const ConfigResult& baseline, const ConfigResult* candidate, const GateRules& rules) {
  Judgement j;
  if (!candidate) {
    j.verdict = Verdict::missing;
    j.why = "the candidate has no result for this configuration";
    return j;
  }
  if (candidate->status != Status::ok || !candidate->timing) {
    j.verdict = Verdict::broken;
    j.why = fmt::format("ok -> {}: {}", status_name(candidate->status),
                        candidate->reason.empty() ? "no reason recorded" : candidate->reason);
    return j;
  }
  for (const char* check : kDeterminismChecks) {
    if (check_passed(baseline.checks, check) == true && check_passed(candidate->checks, check) == false) {
      j.verdict = Verdict::nondeterministic;
      j.why = fmt::format("{} went from true to false", check);
      return j;
    }
  }

  const SampleStats& b = *baseline.timing;
  const SampleStats& c = *candidate->timing;
  const double ratio = c.median_ms / b.median_ms;
  const std::string numbers = fmt::format("{} ({:.4g} -> {:.4g} ms)", percent(ratio - 1), b.median_ms, c.median_ms);
  judge_change(j, ratio, noise_band(b, c), numbers, rules);
  j.why += clock_note(baseline, *candidate);
  return j;
}

Judgement judge_pairs(const std::vector<MeasuredPair>& pairs, const GateRules& rules) {
  if (pairs.empty()) throw Error("judge_pairs needs at least one pair");
  std::vector<double> ratios, bands;
  std::vector<Verdict> alone;  // each pair's verdict on its own
  for (const auto& p : pairs) {
    Judgement one = judge(p.baseline, &p.candidate, rules);
    if (one.verdict == Verdict::broken || one.verdict == Verdict::nondeterministic || pairs.size() == 1) return one;
    ratios.push_back(one.change + 1);
    bands.push_back(one.band);
    alone.push_back(one.verdict);
  }

  Judgement j;
  std::vector<std::string> each;
  for (double r : ratios) each.push_back(percent(r - 1));
  const double ratio = median(ratios);
  judge_change(j, ratio, median(bands),
               fmt::format("{} (median of {} pairs: {})", percent(ratio - 1), pairs.size(), fmt::join(each, ", ")), rules);
  if (j.verdict == Verdict::slower || j.verdict == Verdict::faster) {
    for (std::size_t i = 0; i < alone.size(); ++i) {
      if (alone[i] == j.verdict) continue;
      j.why += fmt::format(", but pair {} of {} alone is {} ({}, noise {:.1f}%): the pairs disagree", i + 1, alone.size(),
                           verdict_name(alone[i]), percent(ratios[i] - 1), 100 * bands[i]);
      j.verdict = Verdict::uncertain;
      break;
    }
  }
  j.why += clock_note(pairs.back().baseline, pairs.back().candidate);  // the clocks of the pair measured last
  return j;
}

}  // namespace attn

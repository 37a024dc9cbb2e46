#include "tuner/export/gate_rules.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tuner/export/check_results.hpp"

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
  j.change = ratio - 1;
  j.band = noise_band(b, c);
  const double size = ratio >= 1 ? ratio - 1 : 1 / ratio - 1;  // the slowdown, or the speedup
  const std::string numbers = fmt::format("{} ({:.4g} -> {:.4g} ms), noise {:.1f}%, threshold {:.1f}%", percent(j.change),
                                          b.median_ms, c.median_ms, 100 * j.band, 100 * rules.threshold);
  const std::string clocks = clock_note(baseline, *candidate);
  if (size <= rules.threshold) {
    j.verdict = Verdict::same;
    j.why = numbers + ": within the threshold" + clocks;
  } else if (size <= j.band) {
    j.verdict = Verdict::uncertain;
    j.why = numbers + ": beyond the threshold but within the noise" + clocks;
  } else {
    j.verdict = j.change > 0 ? Verdict::slower : Verdict::faster;
    j.why = numbers + ": beyond both" + clocks;
  }
  return j;
}

}  // namespace attn

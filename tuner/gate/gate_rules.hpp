// The perf gate's decision for one (kernel, shape, configuration): how a
// candidate measurement compares with the baseline's (docs/gate.md).
//
//   noise(m)  = measurement_noise(m) (record/noise.hpp, the one noise rule): the samples' robust
//               relative spread
//   slowdown  = candidate median / baseline median - 1
//   speedup   = baseline median / candidate median - 1 (the mirror image, so
//               that twice as slow and twice as fast are both 100%)
//   band      = noise_band(baseline, candidate) = sqrt(noise(b)^2 + noise(c)^2)
//
//   SLOWER     slowdown > threshold and slowdown > band
//   FASTER     speedup  > threshold and speedup  > band
//   UNCERTAIN  slowdown or speedup > threshold, but <= band: the noise cannot tell
//   SAME       neither is beyond the threshold
//
// Before timing, and whatever the timing: a candidate that is not ok where the
// baseline was (incorrect, crashed, ...) is BROKEN; one whose deterministic,
// batch_invariant or cache_growth check went from true to false is
// NONDETERMINISTIC; one with no result is MISSING. These, and SLOWER, fail the gate.
//
// Pairs measured side by side (--baseline-spec), judged together:
//   change    = median over the pairs of (candidate median / baseline median) - 1
//   band      = the median of the pairs' bands
//   SLOWER     as above, and every pair judged alone SLOWER too: on a machine
//              whose speed moves between measurements, one pair is a coin toss,
//              and a real slowdown shows in all of them (FASTER likewise);
//              otherwise UNCERTAIN.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/noise.hpp"
#include "tuner/record/result.hpp"

namespace attn {

enum class Verdict { faster, same, slower, uncertain, broken, nondeterministic, missing };

const char* verdict_name(Verdict verdict);  // "FASTER", "SAME", ...

struct GateRules {
  double threshold = 0.05;       // the smallest slowdown that can fail the gate
  int remeasure_limit = 3;       // measurements more for an UNCERTAIN or SLOWER one, with a device
  bool uncertain_fails = false;  // an UNCERTAIN left after the re-measurements fails too
};

// Whether VERDICT fails the gate under RULES.
bool fails(Verdict verdict, const GateRules& rules);

struct Judgement {
  Verdict verdict = Verdict::missing;
  double change = 0;  // candidate median / baseline median - 1, when both were timed
  double band = 0;    // the noise band the change was held against
  std::string why;    // one line
};

// BASELINE must be ok (the gate compares configurations that ranked); CANDIDATE may be null.
Judgement judge(const ConfigResult& baseline, const ConfigResult* candidate, const GateRules& rules);

// One measurement of the baseline's code and one of the candidate's, made side by side.
struct MeasuredPair {
  ConfigResult baseline, candidate;
};

// PAIRS (at least one) judged together, as above. A pair whose candidate is
// not ok or lost determinism decides alone: the last such pair's verdict.
Judgement judge_pairs(const std::vector<MeasuredPair>& pairs, const GateRules& rules);

}  // namespace attn

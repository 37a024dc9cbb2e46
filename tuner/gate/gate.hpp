// `attn-tune gate`: the baseline's best configurations against a candidate,
// either a second leaderboard or measurements made now (gate_rules.hpp says
// how each pair is judged).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tuner/gate/gate_rules.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

// Measures one configuration now, on the device the gate runs on.
using MeasureFn = std::function<ConfigResult(const Job&)>;

struct GateInput {
  const Leaderboard* baseline = nullptr;
  const Leaderboard* candidate = nullptr;  // null: every candidate result is measured now
  MeasureFn measure;                       // empty: no device, so nothing is measured again
  // Measures the baseline's own code now (--baseline-spec): with it, every
  // measurement again is a pair of both codes, taking turns at going first, and
  // all pairs are judged together (judge_pairs), so that the machine's state
  // then and now does not count. May be empty.
  MeasureFn measure_baseline;
  GateRules rules;
  int top = 3;                                  // best configurations per (kernel, shape); 0 = all that ranked
  std::function<void(const std::string&)> log;  // progress lines; may be empty
};

struct GateComparison {
  std::string kernel;
  std::string shape;
  std::string key;
  std::string preset;
  int baseline_rank = 0;
  ConfigResult baseline;                  // the measurement the verdict was taken from: recorded, or made again
  std::optional<ConfigResult> candidate;  // the measurement the verdict was taken from
  Judgement judgement;
  int measured = 0;           // candidate measurements the gate made itself
  int baseline_measured = 0;  // baseline measurements the gate made itself
};

struct GateReport {
  std::string baseline_label;
  std::string candidate_label;
  GateRules rules;
  int top = 3;
  std::vector<GateComparison> comparisons;  // the baseline's order
  std::vector<std::string> notes;

  int count(Verdict verdict) const;
  int failures() const;
  bool passed() const { return failures() == 0; }
};

// For each (kernel, shape) of the baseline, its TOP ranked configurations are
// judged against the candidate's results for the same keys. With a MEASURE
// function, a comparison judged UNCERTAIN or SLOWER is measured again, up to
// rules.remeasure_limit times, until it is judged otherwise: the last
// measurement decides (noise and a busy machine pass; a real slowdown stays).
// With MEASURE_BASELINE too, each measurement again is a fresh pair, and the
// pairs so far decide together.
GateReport run_gate(const GateInput& input);

}  // namespace attn

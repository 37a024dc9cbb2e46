// `attn-tune bench --recheck`: a leaderboard's best configurations timed again
// now, interleaved, and held against their recorded medians. A leaderboard
// whose medians cannot be reproduced on the device that made it is not to be
// trusted (docs/timing.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

struct RecheckInput {
  const Leaderboard* recorded = nullptr;
  std::function<ConfigResult(const Job&)> measure;  // times one configuration now
  int top = 3;                                      // best configurations per (kernel, shape)
  int rounds = 3;                                   // times each configuration is timed, interleaved: A B C A B C A B C
  double tolerance = 0.03;                          // largest |re-timed / recorded - 1| that passes
  std::function<void(const std::string&)> log;      // progress lines; may be empty
};

struct RecheckRow {
  std::string kernel, shape, key;
  int rank = 0;
  double recorded_ms = 0;
  std::vector<double> retimed_ms;  // one median per round, where it timed
  double retimed_median_ms = 0;    // their median
  double difference = 0;           // retimed_median / recorded - 1
  std::string failure;             // a round that did not time: its status and reason
  bool within(double tolerance) const;
};

struct RecheckReport {
  std::vector<RecheckRow> rows;
  double tolerance = 0.03;
  int rounds = 0;
  int failures() const;
};

// Within each (kernel, shape), the TOP ranked configurations are timed ROUNDS
// times in turn (the device's state drifts alike for all of them).
RecheckReport run_recheck(const RecheckInput& input);

// One line per configuration: recorded, re-timed, the difference, ok / DIFFERS.
std::string recheck_table(const RecheckReport& report);

}  // namespace attn

// attn-tune bench --recheck: re-times a leaderboard's best configurations,
// interleaved, against their recorded medians (tuner/gate/recheck.hpp).
#pragma once

#include <string>

namespace attn::cli {

struct RecheckOptions {
  std::string leaderboard;
  std::string spec;    // empty: the one the leaderboard records
  std::string device;  // empty: the one the leaderboard records
  int top = 3;
  int rounds = 3;
  double tolerance_percent = 3;
};

// Prints the table; returns the exit code (1 when any configuration differs
// by more than the tolerance or failed to time).
int run_recheck_command(const RecheckOptions& options);

}  // namespace attn::cli

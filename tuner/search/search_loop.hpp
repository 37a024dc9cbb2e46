// Drives a strategy: propose, evaluate, tell, until a budget is spent or the
// strategy has nothing left. The sweep evaluates on a device (or from its
// journal, when resuming), replay from a recorded leaderboard.
#pragma once

#include <functional>

#include "tuner/search/strategy.hpp"

namespace attn {

struct SearchBudget {
  long long evaluations = 0;  // 0: no limit
  double seconds = 0;         // wall-clock; 0: no limit
};

enum class SearchStop { exhausted, evaluations, time, interrupted };
const char* search_stop_name(SearchStop stop);

struct SearchRun {
  std::vector<Observation> evaluations;  // in the order they were evaluated
  SearchStop stop = SearchStop::exhausted;
  // The strategy's own seconds (propose and tell) for each evaluation, in the same order.
  std::vector<double> strategy_seconds;
};

// Seconds since some fixed point; run_search reads the time through it (a test passes its own).
using SearchClock = std::function<double()>;
double steady_seconds();

using Evaluate = std::function<Cost(const Config&)>;
// Called before each proposal: true stops the search (Ctrl-C).
using StopRequested = std::function<bool()>;

// The time budget counts everything from the call on: the strategy's own time (its proposals and what
// it does with a result) as well as the evaluations. A proposal that comes after the time budget is
// spent is not evaluated.
SearchRun run_search(Strategy& strategy, const SearchBudget& budget, const Evaluate& evaluate,
                     const StopRequested& stop_requested = {}, const SearchClock& clock = steady_seconds);

}  // namespace attn

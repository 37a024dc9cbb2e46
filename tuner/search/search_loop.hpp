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
};

using Evaluate = std::function<Cost(const Config&)>;
// Called before each proposal: true stops the search (Ctrl-C).
using StopRequested = std::function<bool()>;

SearchRun run_search(Strategy& strategy, const SearchBudget& budget, const Evaluate& evaluate,
                     const StopRequested& stop_requested = {});

}  // namespace attn

#include "tuner/search/search_loop.hpp"

#include <chrono>

namespace attn {

const char* search_stop_name(SearchStop stop) {
  switch (stop) {
    case SearchStop::exhausted: return "space exhausted";
    case SearchStop::evaluations: return "evaluation budget spent";
    case SearchStop::time: return "time budget spent";
    case SearchStop::interrupted: return "interrupted";
  }
  return "?";
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

SearchRun run_search(Strategy& strategy, const SearchBudget& budget, const Evaluate& evaluate,
                     const StopRequested& stop_requested, const SearchClock& clock) {
  const double start = clock();
  SearchRun run;
  auto stopped = [&run](SearchStop why) {
    run.stop = why;
    return run;
  };
  auto out_of_time = [&] { return budget.seconds > 0 && clock() - start >= budget.seconds; };
  for (;;) {
    if (stop_requested && stop_requested()) return stopped(SearchStop::interrupted);
    if (budget.evaluations > 0 && static_cast<long long>(run.evaluations.size()) >= budget.evaluations)
      return stopped(SearchStop::evaluations);
    if (out_of_time()) return stopped(SearchStop::time);
    const double proposing = clock();
    std::optional<Config> config = strategy.propose();
    double strategy_seconds = clock() - proposing;
    if (!config) return stopped(SearchStop::exhausted);
    if (out_of_time()) return stopped(SearchStop::time);  // the strategy spent the rest of the budget itself
    const Cost cost = evaluate(*config);
    if (stop_requested && stop_requested()) return stopped(SearchStop::interrupted);  // not the configuration's fault
    const double telling = clock();
    strategy.tell(*config, cost);
    strategy_seconds += clock() - telling;
    run.evaluations.push_back({std::move(*config), cost});
    run.strategy_seconds.push_back(strategy_seconds);
  }
}

}  // namespace attn

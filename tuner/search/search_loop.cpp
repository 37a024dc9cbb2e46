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

SearchRun run_search(Strategy& strategy, const SearchBudget& budget, const Evaluate& evaluate,
                     const StopRequested& stop_requested) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  SearchRun run;
  auto stopped = [&run](SearchStop why) {
    run.stop = why;
    return run;
  };
  for (;;) {
    if (stop_requested && stop_requested()) return stopped(SearchStop::interrupted);
    if (budget.evaluations > 0 && static_cast<long long>(run.evaluations.size()) >= budget.evaluations)
      return stopped(SearchStop::evaluations);
    if (budget.seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= budget.seconds)
      return stopped(SearchStop::time);
    std::optional<Config> config = strategy.propose();
    if (!config) return stopped(SearchStop::exhausted);
    const Cost cost = evaluate(*config);
    if (stop_requested && stop_requested()) return stopped(SearchStop::interrupted);  // not the configuration's fault
    strategy.tell(*config, cost);
    run.evaluations.push_back({std::move(*config), cost});
  }
}

}  // namespace attn

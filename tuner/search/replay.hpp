// Replay (Kernel Tuner's simulation mode): a strategy runs against a recorded
// exhaustive leaderboard with no device. A configuration's result is its
// recorded median time; a failed one fails again. Over several seeds it
// reports how many evaluations the strategy needs to come within a few
// percent of the recorded best, and the best it finds at each budget.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/search/search_loop.hpp"

namespace attn {

// One (kernel, shape) of a leaderboard as a searchable space with its recorded costs.
struct RecordedGroup {
  std::string kernel;
  std::string shape;
  RecordedSpace space;
  std::map<std::string, Cost> costs;  // by config_key
  double best = 0;                    // the fastest recorded median, ms

  static RecordedGroup of(const LeaderboardGroup& group);
  long long size() const { return static_cast<long long>(costs.size()); }
};

struct ReplayOptions {
  std::string strategy;
  long long budget_evals = 0;  // 0: the whole recorded space
  int repeat = 20;
  std::uint64_t seed = 1;  // repeat r runs with seed + r
  std::vector<double> within{0.01, 0.03, 0.05};
};

// Quartiles of how many evaluations reached a target; a quantile that falls on
// a run that never reached it within the budget is nullopt.
struct EvalsQuartiles {
  std::optional<double> q1, median, q3;
  int reached = 0;  // runs that reached it
};

// One seed's run: what it spent and the best it found.
struct ReplayRun {
  std::uint64_t seed = 0;
  long long evaluations = 0;   // configurations evaluated (at most the budget)
  std::optional<Config> best;  // the fastest found; nullopt when none it evaluated ran ok
  double best_ms = 0;
  // (evaluation, time) each time the best so far improved; evaluations count from 1.
  std::vector<std::pair<long long, double>> improvements;
  std::vector<double> strategy_seconds;  // the strategy's own time for each evaluation
};

struct ReplayResult {
  std::string kernel, shape;
  long long space_size = 0;
  double best_ms = 0;
  long long budget = 0;
  std::vector<std::pair<double, EvalsQuartiles>> within;  // tolerance -> evaluations needed
  // Budget -> median over the runs of (best found / recorded best - 1); the budgets are 1, 2, 5, 10, 20, 50, ...
  std::vector<std::pair<long long, double>> gap_at_budget;
  std::vector<std::vector<double>> best_so_far;  // per run: best time after each evaluation
  std::vector<ReplayRun> runs;
  // Median over every evaluation of every run of the strategy's own time (propose and tell), ms.
  double strategy_ms_median = 0;
};

ReplayResult replay(const RecordedGroup& group, const ReplayOptions& options);

// Quantile Q of SORTED (linear interpolation); nullopt when it touches a missing (unreached) value.
std::optional<double> quantile(const std::vector<std::optional<double>>& sorted, double q);

nlohmann::json replay_json(const std::vector<ReplayResult>& results, const ReplayOptions& options);
std::string replay_table(const std::vector<ReplayResult>& results, const ReplayOptions& options);

}  // namespace attn

// `attn-tune sweep`: every configuration of every kernel of a spec on every
// shape, journaled as it goes, ranked into a leaderboard at the end.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/measure/race.hpp"
#include "tuner/record/leaderboard_model.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/record/shard.hpp"
#include "tuner/sweep/compile_counts.hpp"
#include "tuner/sweep/progress.hpp"
#include "tuner/sweep/run_summary.hpp"
#include "tuner/sweep/search_sweep.hpp"

namespace attn {

struct SweepOptions {
  std::filesystem::path spec_path;
  std::string device_id;             // empty: the best device for the spec's backends
  std::vector<std::string> devices;  // several devices of one model sharing the queue (device_id then unused)
  Shard shard;                       // this process's part of the plan (--shard); the whole plan by default
  std::string shape_selection;       // --shape
  std::vector<std::string> kernels;  // --kernel; empty = all
  std::filesystem::path out;         // empty: results/<spec>.<device>.json
  bool resume = false;
  bool overwrite = false;   // discard an unfinished journal instead of refusing
  bool keep_going = false;  // run on when the first configurations all fail to compile alike
  bool remeasure = false;   // measure everything, answering nothing from the measurement store
  RunSettings settings;
  SearchOptions search;  // --strategy and its budgets; exhaustive: the whole plan
  std::string command_line;
};

struct SweepOutcome {
  Leaderboard leaderboard;
  std::filesystem::path leaderboard_path;
  std::filesystem::path journal_path;
  bool interrupted = false;
  std::string stopped_early;   // why the sweep stopped before the end of its plan (a source that does not compile)
  RunSummary summary;          // every result of the leaderboard by status, and what could not run
  CompileCounts compilations;  // this sweep's programs: compiled, or read from the compile cache
  long long replayed = 0;      // results answered from the measurement store (record/measurement_store.hpp)
  std::filesystem::path store_path;
  RaceSummary race;  // the staged measurement's race and confirmation
};

SweepOutcome run_sweep(const SweepOptions& options, Progress& progress);

// results/<spec name>.<device name slug>.json
std::filesystem::path default_leaderboard_path(const std::string& spec_name, const std::string& device_name);

}  // namespace attn

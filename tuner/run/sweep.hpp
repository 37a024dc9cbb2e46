// `attn-tune sweep`: every configuration of every kernel of a spec on every
// shape, journaled as it goes, ranked into a leaderboard at the end.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/run/progress.hpp"
#include "tuner/run/settings.hpp"

namespace attn {

struct SweepOptions {
  std::filesystem::path spec_path;
  std::string device_id;               // empty: the best device for the spec's backends
  std::string shape_selection;         // --shape
  std::vector<std::string> kernels;    // --kernel; empty = all
  std::filesystem::path out;           // empty: results/<spec>.<device>.json
  bool resume = false;
  bool overwrite = false;              // discard an unfinished journal instead of refusing
  RunSettings settings;
  std::string command_line;
};

struct SweepOutcome {
  nlohmann::json leaderboard;
  std::filesystem::path leaderboard_path;
  std::filesystem::path journal_path;
  bool interrupted = false;
};

SweepOutcome run_sweep(const SweepOptions& options, Progress& progress);

// results/<spec name>.<device name slug>.json
std::filesystem::path default_leaderboard_path(const std::string& spec_name, const std::string& device_name);

}  // namespace attn

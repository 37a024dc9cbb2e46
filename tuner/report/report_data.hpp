// What the report shows, computed once for its HTML and markdown forms:
// heatmaps over two parameters, the spread of a group, roofline places, and
// how leaderboards of the same kernels compare.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/export/provenance.hpp"
#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/report/device_ceilings.hpp"

namespace attn {

struct ReportOptions {
  std::string x_param = "BLOCK_M";  // the heatmap's axes
  std::string y_param = "BLOCK_N";
  Ceilings ceilings;    // --peak-gflops / --peak-gbps; zero = the known ones
  int top = 0;          // configurations per table; 0 = every one
  std::string command;  // the command line that wrote the report
};

struct HeatmapCell {
  std::optional<double> median_ms;  // the best over the other parameters; empty when none ranked
  double relative = 0;              // median / the group's best
  std::string best_key;
  std::string note;  // when none ranked: "2 skipped, 1 incorrect"; empty when nothing was tried
};

struct Heatmap {
  std::string x_param, y_param;
  std::vector<ParamValue> xs, ys;               // every value tried, ascending
  std::vector<std::vector<HeatmapCell>> cells;  // [y][x]
  std::string axes_note;                        // why other axes than the ones asked for, if so
};

// Over X and Y when the group's configurations have both, else over its first
// two parameters; nothing when they have fewer than two.
std::optional<Heatmap> heatmap_of(const LeaderboardGroup& group, const std::string& x, const std::string& y);

// One ranked configuration in the spread of its group, relative to the best.
struct SpreadPoint {
  double relative = 0, q1 = 0, q3 = 0;  // median, quartiles / the best median
  bool best = false, baseline = false;
  std::string label;
};
std::vector<SpreadPoint> spread_of(const LeaderboardGroup& group);

// The group's ceilings for its element type: OVERRIDE's non-zero figures, else the known ones.
Ceilings ceilings_of(const Leaderboard& leaderboard, const LeaderboardGroup& group, const Ceilings& override_);

// What one (spec, kernel, shape) came to in each of several leaderboards.
struct CrossComparison {
  std::string spec, kernel, shape;
  std::vector<const ConfigResult*> best;  // per leaderboard; null when absent or nothing ranked
  // portability[i][j]: the time of leaderboard i's best configuration in
  // leaderboard j over j's best; empty when it did not rank in j.
  std::vector<std::vector<std::optional<double>>> portability;
};

// Every (spec, kernel, shape) that ranked in at least two of LEADERBOARDS with the same shape fields.
std::vector<CrossComparison> cross_comparisons(const std::vector<Leaderboard>& leaderboards);

// Milliseconds to 4 significant figures: "0.4123", "12.35".
std::string format_ms(double ms);

// The largest per-entry resource figure over a result's entry points (registers, spills...).
std::optional<long long> max_resource(const ConfigResult& result, std::optional<long long> KernelResources::*field);

}  // namespace attn

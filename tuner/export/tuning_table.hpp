// What `attn-tune export` writes, before it is C++: per kernel of a spec, the
// configuration to use per (device level, key, shape bucket) and a default.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tuner/export/config_choice.hpp"
#include "tuner/export/shape_bucket.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

// The fallback chain, most specific first; the default comes after the last.
enum class DeviceLevel { name = 0, arch = 1, vendor = 2 };
const char* level_name(DeviceLevel level);  // "name", "arch", "vendor"

struct TableRow {
  DeviceLevel level = DeviceLevel::name;
  std::string key;  // the device name, architecture or vendor
  ShapeBucket bucket;
  ConfigChoice choice;
  std::vector<std::string> chosen_over;  // "NVIDIA H200: prefill-1k": the results behind it
};

struct TunedKernel {
  std::string spec_name;
  std::string kernel;
  std::string operation;
  std::vector<std::string> param_names;                      // the spec's order
  std::map<std::string, std::set<ParamValue>> param_values;  // every value the sweeps tried
  std::vector<BucketField> scheme;
  std::vector<TableRow> rows;  // by level, key, then bucket
  ConfigChoice fallback;       // choose_config over every device and shape
};

struct TuningTables {
  std::vector<TunedKernel> kernels;  // by spec, then kernel
  std::vector<std::string> notes;    // kernels left out, and why
};

// Throws UsageError when leaderboards of one spec disagree on a kernel's
// parameters or on the operation.
TuningTables build_tuning_tables(const std::vector<Leaderboard>& leaderboards);

}  // namespace attn

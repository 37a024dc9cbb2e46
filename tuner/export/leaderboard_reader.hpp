// Leaderboard files (schema attn-tune.leaderboard/1, written by
// tuner/run/leaderboard.cpp) read back into typed results, for the commands
// that consume them: export, gate and report.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/backend/device.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/run/result.hpp"
#include "tuner/run/settings.hpp"

namespace attn {

// One (kernel, shape) of a leaderboard.
struct LeaderboardGroup {
  std::string kernel;
  std::string shape;
  nlohmann::json shape_fields;        // the operation's fields, defaults applied
  std::vector<ConfigResult> entries;  // the file's order: ok ones fastest first, then the rest
  std::string baseline_preset;        // the spec's baseline, empty when none

  // The ok entries, fastest first: element i has rank i + 1.
  std::vector<const ConfigResult*> ranked() const;
  const ConfigResult* best() const;  // rank 1, or null when nothing ranked
  const ConfigResult* find(const std::string& key) const;
  std::vector<std::string> param_names() const;  // the kernel's parameters, in the spec's order
};

struct LeaderboardSource {
  std::string backend;
  std::string path;
  std::string sha256;              // of the source and its includes (just the source's bytes when files is empty)
  std::vector<SourceFile> files;   // the source and each file it includes; empty in older leaderboards
};

struct Leaderboard {
  std::filesystem::path file;  // where it was read from
  std::string attn_tune_version;
  std::string git_commit;
  std::string created_utc;
  std::string command;
  bool complete = true;
  DeviceInfo device;
  std::string spec_path;  // as recorded: relative to where the sweep ran
  std::string spec_name;
  std::string spec_sha256;
  std::string operation;
  std::string shape_filter;  // the sweep's --shape
  std::vector<LeaderboardSource> sources;
  RunSettings settings;
  std::vector<LeaderboardGroup> groups;

  const LeaderboardGroup* find_group(const std::string& kernel, const std::string& shape) const;
  // "NVIDIA H200 (cuda:0), results/x.json": how messages name it.
  std::string label() const;
};

// Throws UsageError naming the file (and the field) when the file is not a
// readable leaderboard of a schema this attn-tune knows.
Leaderboard read_leaderboard(const std::filesystem::path& file);
std::vector<Leaderboard> read_leaderboards(const std::vector<std::filesystem::path>& files);

}  // namespace attn

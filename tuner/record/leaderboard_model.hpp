// The leaderboard file as types: `attn-tune sweep` writes it, export, gate and
// report read it, tests build it. One definition of the format, converted with
// nlohmann's to_json/from_json; fields a reader does not know are ignored, so
// that files of older and newer attn-tunes load.
//
// Derived figures (a group's counts, best, baseline speedup) are computed from
// the entries when written, never read back: they cannot disagree with them.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/core/source_identity.hpp"
#include "tuner/device/device.hpp"
#include "tuner/record/result.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/record/shard.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// Version 2 adds `resumes` and `started_utc`; version 1 files still load.
inline constexpr const char* kLeaderboardSchema = "attn-tune.leaderboard/2";
inline constexpr const char* kLeaderboardSchemaPrefix = "attn-tune.leaderboard/";
inline constexpr int kLeaderboardVersion = 2;

// The version of SCHEMA ("attn-tune.leaderboard/N"), or 0 when it is not a leaderboard's.
int leaderboard_schema_version(const std::string& schema);

// One configuration's result in its group.
struct LeaderboardEntry : ConfigResult {
  int rank = 0;          // 1 = fastest; 0 when it did not rank
  std::string excluded;  // why an ok result did not rank (a check --require asked for failed)
};

// One (kernel, shape): its results, ranked ones first (fastest first), then the rest by status.
struct LeaderboardGroup {
  std::string kernel;
  std::string shape;
  nlohmann::json shape_fields;  // the operation's fields, defaults applied
  std::vector<LeaderboardEntry> entries;
  std::string baseline_preset;  // the spec's baseline, empty when none
  nlohmann::json determinism;   // the cost of determinism (run/determinism_summary), null when unchecked
  nlohmann::json retimed;       // merge --retime-top: its fastest measured again on one device; null when not

  // The ranked entries, fastest first: element i has rank i + 1.
  std::vector<const LeaderboardEntry*> ranked() const;
  const LeaderboardEntry* best() const;  // rank 1, or null when nothing ranked
  const LeaderboardEntry* find(const std::string& key) const;
  const LeaderboardEntry* baseline() const;      // the entry of the baseline preset, null when none
  std::map<std::string, int> counts() const;     // entries per status
  std::vector<std::string> param_names() const;  // the kernel's parameters, in the spec's order
};

// A kernel source the results were measured with.
struct LeaderboardSource {
  std::string backend;
  std::string path;
  std::string sha256;             // of the source and its includes (just the source's bytes when files is empty)
  std::vector<SourceFile> files;  // the source and each file it includes; empty in older leaderboards
};

// A `sweep --resume` that continued the sweep.
struct LeaderboardResume {
  std::string command;
  std::string utc;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LeaderboardResume, command, utc)

// One of the leaderboards that `merge` put together.
struct LeaderboardPart {
  std::string file;
  std::string device;  // the device id its sweep recorded
  bool complete = true;
  Shard shard;
  std::string created_utc;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LeaderboardPart, file, device, complete, shard, created_utc)

struct Leaderboard {
  std::filesystem::path file;                // where it was read from (not written)
  int schema_version = kLeaderboardVersion;  // as read; written as the current one
  std::string attn_tune_version;
  std::string git_commit;
  std::string created_utc;  // when this file was written
  std::string started_utc;  // when the sweep started (empty in version 1)
  std::string command;      // the command that started the sweep
  std::vector<LeaderboardResume> resumes;
  bool complete = true;  // false when the sweep was interrupted
  DeviceInfo device;
  std::string spec_path;  // as recorded: relative to where the sweep ran
  std::string spec_name;
  std::string spec_sha256;
  std::string operation;
  std::string shape_filter;  // the sweep's --shape
  std::vector<LeaderboardSource> sources;
  RunSettings settings;
  Tolerance tolerance;
  std::vector<LeaderboardGroup> groups;
  // Distribution (tuner/distribute): the devices of one model that shared the sweep's queue, or that a merge's parts
  // were measured on (empty: `device` alone); this file's shard of a sharded sweep; what a merge was made of and
  // the job keys of the plan that none of its parts measured.
  std::vector<std::string> devices;
  Shard shard;
  std::vector<LeaderboardPart> merged_from;
  std::vector<std::string> missing;

  const LeaderboardGroup* find_group(const std::string& kernel, const std::string& shape) const;
  // "NVIDIA H200 (cuda:0), results/x.json": how messages name it.
  std::string label() const;
};

// Reading throws Error naming the field ("groups[2].entries[0].status: ..."). Hand-written: the schema version is
// checked, derived figures (counts, best, baseline) are written but never read, and optional fields are left out.
void to_json(nlohmann::json& j, const LeaderboardEntry& entry);
void from_json(const nlohmann::json& j, LeaderboardEntry& entry);  // needs "kernel" and "shape": see the group's
void to_json(nlohmann::json& j, const LeaderboardGroup& group);
void from_json(const nlohmann::json& j, LeaderboardGroup& group);
void to_json(nlohmann::json& j, const Leaderboard& leaderboard);
void from_json(const nlohmann::json& j, Leaderboard& leaderboard);

}  // namespace attn

// `attn-tune merge`: the union of shard leaderboards (or of leaderboards of
// several devices of one model), ranked again as one sweep would rank it.
// Shards that do not belong together are refused: another spec, other kernel
// sources, other timing settings or seed, another device model.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tuner/record/leaderboard_model.hpp"

namespace attn {

struct MergeOptions {
  std::vector<std::filesystem::path> shards;
  std::filesystem::path spec;  // empty: the spec the shards record, found as `gate` finds it
  std::string command_line;
};

struct MergeOutcome {
  Leaderboard leaderboard;           // with merged_from, devices and missing
  std::filesystem::path spec;        // the spec file the shards were swept from
  std::vector<std::string> missing;  // Job keys of the plan that no shard measured
};

// Throws UsageError naming the files and what differs between them.
MergeOutcome merge_shards(const MergeOptions& options);

// Measures again, on DEVICE_ID one after another, the TOP fastest entries of
// each group of MERGED (swept from SPEC), and records them in each group as
// "retimed": entries fastest first and the retimed winner. NOTE is told each measurement.
void retime_top(Leaderboard& merged, const std::filesystem::path& spec, int top, const std::string& device_id,
                const std::function<void(const std::string&)>& note);

}  // namespace attn

// `sweep` over the devices and the shard this process is given: --device
// lists and "all" forms, --shard or a launcher's environment. Each device
// model gets its own leaderboard and journal; each shard its own files.
#pragma once

#include <string>
#include <vector>

#include "tuner/sweep/launcher_env.hpp"
#include "tuner/sweep/sweep.hpp"

namespace attn {

struct DistributedSweepRequest {
  SweepOptions sweep;   // device_id, devices and shard are filled in here
  std::string devices;  // --device as given: "", "cuda:0", "cuda:0,cuda:1", "cuda:all"
  std::string shard;    // --shard as given: "" reads the launcher's environment
};

// One outcome per device model, in the order the models were named. NOTE is
// told which shard and device a launcher's environment gave ("shard 1/4 from ...").
std::vector<SweepOutcome> run_distributed_sweep(const DistributedSweepRequest& request, Progress& progress,
                                                const EnvLookup& env, const std::function<void(const std::string&)>& note);

// "lb.json" -> "lb.<model slug>.json", for the leaderboards of a sweep over several device models.
std::filesystem::path model_path(const std::filesystem::path& path, const std::string& model);

}  // namespace attn

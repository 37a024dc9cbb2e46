// The shard (and the device, for one process per GPU) that the usual
// launchers give a process through its environment: Slurm job arrays,
// torchrun, Open MPI. attn-tune has no scheduler of its own.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tuner/record/shard.hpp"

namespace attn {

struct LauncherPlacement {
  Shard shard;                    // shard.source says which launcher and variables
  std::optional<int> local_rank;  // torchrun's LOCAL_RANK, Open MPI's local rank: the device index on the node
};

// The value of an environment variable, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// Slurm job array (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, or
// SLURM_ARRAY_TASK_MIN/MAX), then torchrun (RANK, WORLD_SIZE, LOCAL_RANK),
// then Open MPI (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE,
// OMPI_COMM_WORLD_LOCAL_RANK). Nullopt when none is set; UsageError naming
// the variables when their values do not make a shard.
std::optional<LauncherPlacement> placement_from_environment(const EnvLookup& env);

}  // namespace attn

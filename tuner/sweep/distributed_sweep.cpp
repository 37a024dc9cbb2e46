#include "tuner/sweep/distributed_sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/load/spec_loader.hpp"
#include "tuner/runners/device_pool.hpp"

namespace attn {

std::filesystem::path model_path(const std::filesystem::path& path, const std::string& model) {
  std::filesystem::path out = path;
  out.replace_filename(default_leaderboard_path(path.stem().string(), model).filename());
  return out;
}

std::vector<SweepOutcome> run_distributed_sweep(const DistributedSweepRequest& request, Progress& progress,
                                                const EnvLookup& env, const std::function<void(const std::string&)>& note) {
  SweepOptions options = request.sweep;
  std::optional<int> local_rank;
  if (!request.shard.empty()) {
    options.shard = parse_shard(request.shard);
  } else if (const auto placed = placement_from_environment(env)) {
    options.shard = placed->shard;
    local_rank = placed->local_rank;
    note(fmt::format("shard {}/{} from {}", options.shard.index, options.shard.count, options.shard.source));
  }

  std::vector<std::string> backends;
  for (const auto& [backend, _] : load_spec(options.spec_path).sources) backends.push_back(backend);
  const std::vector<DeviceInfo> devices = resolve_devices(request.devices, backends, local_rank);
  if (request.devices.empty() && local_rank)
    note(fmt::format("device {} from local rank {}", devices.front().id, *local_rank));

  const std::vector<DeviceGroup> groups = group_by_model(devices);
  std::vector<SweepOutcome> outcomes;
  for (const auto& group : groups) {
    SweepOptions one = options;
    one.device_id.clear();
    one.devices = group.ids;
    if (groups.size() > 1 && !one.out.empty()) one.out = model_path(one.out, group.model);
    if (groups.size() > 1) note(fmt::format("{}: {}", group.model, fmt::join(group.ids, ", ")));
    outcomes.push_back(run_sweep(one, progress));
    if (outcomes.back().interrupted) break;
  }
  return outcomes;
}

}  // namespace attn

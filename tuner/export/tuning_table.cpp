#include "tuner/export/tuning_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/export/device_keys.hpp"

namespace attn {
namespace {

struct SourcedGroup {
  const Leaderboard* leaderboard;
  const LeaderboardGroup* group;
};

std::vector<std::string> param_names_of(const Config& config) {
  std::vector<std::string> names;
  for (const auto& [name, _] : config) names.push_back(name);
  return names;
}

// Names and tried values of KERNEL's parameters, checking that every result agrees on the names.
void collect_params(TunedKernel& kernel, const std::vector<SourcedGroup>& groups) {
  std::string first_file;
  for (const auto& [lb, group] : groups) {
    for (const auto& e : group->entries) {
      const auto names = param_names_of(e.job.config);
      if (kernel.param_names.empty()) {
        kernel.param_names = names;
        first_file = lb->file.string();
      }
      if (names != kernel.param_names)
        throw UsageError(fmt::format("{} / {}: {} has parameters {} where {} has {}: export them separately",
                                     kernel.spec_name, kernel.kernel, lb->file.string(), fmt::join(names, ","), first_file,
                                     fmt::join(kernel.param_names, ",")));
      for (const auto& [name, value] : e.job.config) kernel.param_values[name].insert(value);
    }
  }
}

std::string level_key(DeviceLevel level, const DeviceInfo& device) {
  const DeviceKeys keys = device_keys(device);
  switch (level) {
    case DeviceLevel::name: return keys.name;
    case DeviceLevel::arch: return keys.arch;
    case DeviceLevel::vendor: return keys.vendor;
  }
  return "";
}

// One row per (KEY at LEVEL, bucket) that ranked something.
void add_rows(TunedKernel& kernel, DeviceLevel level, const std::vector<SourcedGroup>& groups) {
  struct Cell {
    std::string key;
    ShapeBucket bucket;
    std::vector<const LeaderboardGroup*> groups;
    std::vector<std::string> names;
  };
  std::map<std::pair<std::string, std::string>, Cell> cells;  // (key, bucket label): sorted output
  for (const auto& [lb, group] : groups) {
    const std::string key = level_key(level, lb->device);
    if (key.empty()) continue;
    ShapeBucket bucket = bucket_of(kernel.scheme, group->shape_fields);
    Cell& cell = cells[{key, bucket.label(kernel.scheme)}];
    cell.key = key;
    cell.bucket = std::move(bucket);
    cell.groups.push_back(group);
    cell.names.push_back(fmt::format("{}: {}", lb->device.name, group->shape));
  }
  for (auto& [_, cell] : cells) {
    const auto choice = choose_config(cell.groups);
    if (!choice) continue;
    kernel.rows.push_back({level, cell.key, std::move(cell.bucket), *choice, std::move(cell.names)});
  }
}

}  // namespace

const char* level_name(DeviceLevel level) {
  switch (level) {
    case DeviceLevel::name: return "name";
    case DeviceLevel::arch: return "arch";
    case DeviceLevel::vendor: return "vendor";
  }
  return "";
}

TuningTables build_tuning_tables(const std::vector<Leaderboard>& leaderboards) {
  // (spec, kernel) -> its groups on every device, in the order given.
  std::map<std::pair<std::string, std::string>, std::vector<SourcedGroup>> by_kernel;
  std::map<std::string, std::string> operation_of_spec;
  for (const auto& lb : leaderboards) {
    auto [it, fresh] = operation_of_spec.emplace(lb.spec_name, lb.operation);
    if (!fresh && it->second != lb.operation)
      throw UsageError(fmt::format("{}: spec '{}' has operation '{}' here but '{}' in another leaderboard", lb.file.string(),
                                   lb.spec_name, lb.operation, it->second));
    for (const auto& g : lb.groups) by_kernel[{lb.spec_name, g.kernel}].push_back({&lb, &g});
  }

  TuningTables tables;
  for (const auto& [id, groups] : by_kernel) {
    TunedKernel kernel;
    kernel.spec_name = id.first;
    kernel.kernel = id.second;
    kernel.operation = operation_of_spec.at(id.first);
    collect_params(kernel, groups);
    std::vector<nlohmann::json> shapes_fields;
    std::vector<const LeaderboardGroup*> all;
    for (const auto& [_, group] : groups) {
      shapes_fields.push_back(group->shape_fields);
      all.push_back(group);
    }
    kernel.scheme = bucket_scheme(kernel.operation, shapes_fields);
    const auto fallback = choose_config(all);
    if (!fallback) {
      tables.notes.push_back(fmt::format("{} / {}: left out, no configuration ranked (status ok) on any device or shape",
                                         kernel.spec_name, kernel.kernel));
      continue;
    }
    kernel.fallback = *fallback;
    for (DeviceLevel level : {DeviceLevel::name, DeviceLevel::arch, DeviceLevel::vendor}) add_rows(kernel, level, groups);
    tables.kernels.push_back(std::move(kernel));
  }
  return tables;
}

}  // namespace attn

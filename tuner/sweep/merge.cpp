#include "tuner/sweep/merge.hpp"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/gate/recorded_spec_measurer.hpp"
#include "tuner/load/shape_selection.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/plan/run_plan.hpp"
#include "tuner/record/leaderboard.hpp"
#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/record/measurement_identity.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// What must be equal for two leaderboards to be one sweep's parts: what defines their measurements
// (run/measurement_identity), with the device model in place of the device.
nlohmann::json merge_identity(const Leaderboard& lb) {
  nlohmann::json id = measurement_identity(lb);
  id.erase("device");
  id["device_model"] = lb.device.name;
  return id;
}

// How messages call the fields of the identity.
std::string field_name(const std::string& key) {
  static const std::map<std::string, std::string> names = {{"spec_sha256", "spec (sha256)"},
                                                           {"sources", "kernel sources"},
                                                           {"shape_selection", "--shape selection"},
                                                           {"seed", "--seed"},
                                                           {"timing", "timing settings"},
                                                           {"checks", "determinism settings"},
                                                           {"device_model", "device model"}};
  const auto it = names.find(key);
  return it == names.end() ? key : it->second;
}

// "min_samples: 2 in A, 3 in B": the first member of FIRST and OTHER that differs, or the values themselves.
std::string difference(const nlohmann::json& first, const nlohmann::json& other, const std::string& a,
                       const std::string& b) {
  if (first.is_object() && other.is_object()) {
    std::set<std::string> keys;
    for (const auto& [key, _] : first.items()) keys.insert(key);
    for (const auto& [key, _] : other.items()) keys.insert(key);
    for (const auto& key : keys) {
      const nlohmann::json x = first.value(key, nlohmann::json()), y = other.value(key, nlohmann::json());
      if (x != y) return fmt::format("{}: {} in {}, {} in {}", key, x.dump(), a, y.dump(), b);
    }
  }
  return fmt::format("{} in {}, {} in {}", first.dump(), a, other.dump(), b);
}

void refuse_mismatches(const std::vector<Leaderboard>& shards) {
  const nlohmann::json first = merge_identity(shards.front());
  const std::string a = shards.front().file.string();
  for (std::size_t i = 1; i < shards.size(); ++i) {
    const nlohmann::json other = merge_identity(shards[i]);
    const std::string b = shards[i].file.string();
    for (const auto& [key, value] : first.items())
      if (other.value(key, nlohmann::json()) != value)
        throw UsageError(
            fmt::format("cannot merge {} with {}: their {} differ ({}): shards of one sweep are run with "
                        "the same spec, code, --shape, timing options and seed, on one device model",
                        b, a, field_name(key), difference(value, other.value(key, nlohmann::json()), a, b)));
  }
}

// Every job key of SPEC's plan on BACKEND for the KERNELS the shards measured
// (a sweep's --kernel keeps the others out of every shard).
std::vector<std::string> planned_keys(const Spec& spec, const std::string& backend, const std::set<std::string>& kernels) {
  RunPlan plan(spec, backend);
  std::vector<std::string> keys;
  for (PlannedJob planned; plan.next(planned);)
    if (kernels.contains(planned.job.kernel)) keys.push_back(planned.job.key());
  return keys;
}

Spec load_recorded_spec(const fs::path& file, const Leaderboard& lb) {
  Spec spec = load_spec(file);
  select_shapes(spec, lb.shape_filter);
  if (const auto diffs = code_differences(spec, lb); !diffs.empty())
    throw UsageError(
        fmt::format("{} was measured with other code than is here now: {}", lb.file.string(), fmt::join(diffs, "; ")));
  return spec;
}

}  // namespace

MergeOutcome merge_shards(const MergeOptions& options) {
  if (options.shards.empty()) throw UsageError("merge: no leaderboards given");
  const std::vector<Leaderboard> shards = read_leaderboards(options.shards);
  refuse_mismatches(shards);
  MergeOutcome outcome;
  outcome.spec = options.spec.empty() ? find_recorded_spec(shards.front()) : options.spec;
  const Spec spec = load_recorded_spec(outcome.spec, shards.front());

  std::vector<ConfigResult> results;
  std::map<std::string, fs::path> measured_in;  // job key -> shard file
  std::set<std::string> kernels;
  std::set<std::string> devices;
  std::vector<LeaderboardPart> parts;
  bool complete = true;
  for (const auto& lb : shards) {
    for (const auto& group : lb.groups) {
      kernels.insert(group.kernel);
      for (const auto& r : group.entries) {
        const auto [it, fresh] = measured_in.emplace(r.job.key(), lb.file);
        if (!fresh)
          throw UsageError(
              fmt::format("cannot merge: {} is in both {} and {} (shards overlap: were they run with "
                          "different --shard counts, or is a file given twice?)",
                          r.job.key(), it->second.string(), lb.file.string()));
        results.push_back(r);
        devices.insert(r.device.empty() ? lb.device.id : r.device);
      }
    }
    complete = complete && lb.complete;
    parts.push_back({lb.file.string(), lb.device.id, lb.complete, lb.shard, lb.created_utc});
  }

  for (const auto& key : planned_keys(spec, shards.front().device.backend, kernels))
    if (!measured_in.contains(key)) outcome.missing.push_back(key);

  const Leaderboard& first = shards.front();
  LeaderboardContext ctx{
      spec, first.device, first.settings, options.command_line, first.shape_filter, complete && outcome.missing.empty()};
  outcome.leaderboard = build_leaderboard(ctx, results);
  outcome.leaderboard.devices.assign(devices.begin(), devices.end());
  outcome.leaderboard.merged_from = std::move(parts);
  outcome.leaderboard.missing = outcome.missing;
  return outcome;
}

void retime_top(Leaderboard& merged, const fs::path& spec_path, int top, const std::string& device_id,
                const std::function<void(const std::string&)>& note) {
  RecordedSpecMeasurer measurer(spec_path, merged, device_id);
  for (auto& group : merged.groups) {
    std::vector<ConfigResult> again;
    const auto fastest = group.ranked();
    for (std::size_t n = 0; n < fastest.size() && n < static_cast<std::size_t>(top); ++n) {
      const ConfigResult& r = *fastest[n];
      ConfigResult now = measurer.measure(r.job);
      now.device = measurer.device().id;
      note(fmt::format("{} / {}  {}: {} ms here, {:.4f} ms on {}", r.job.kernel, r.job.shape, config_key(r.job.config),
                       now.timing ? fmt::format("{:.4f}", now.timing->median_ms) : status_name(now.status),
                       r.timing->median_ms, r.device.empty() ? merged.device.id : r.device));
      again.push_back(std::move(now));
    }
    if (again.empty()) continue;
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& r : ranked(std::move(again))) {
      const LeaderboardEntry* before = group.find(config_key(r.job.config));
      nlohmann::json e = {{"key", config_key(r.job.config)},
                          {"status", status_name(r.status)},
                          {"recorded_median_ms", before->timing->median_ms},
                          {"recorded_device", before->device.empty() ? merged.device.id : before->device}};
      if (r.timing) e["median_ms"] = r.timing->median_ms;
      else e["reason"] = r.reason;
      entries.push_back(std::move(e));
    }
    group.retimed = {{"device", measurer.device().id}, {"top", top}, {"entries", entries}};
    if (entries.front().contains("median_ms")) group.retimed["best"] = entries.front().at("key");
  }
}

}  // namespace attn

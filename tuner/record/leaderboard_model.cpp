#include "tuner/record/leaderboard_model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/record/ties.hpp"

namespace attn {
namespace {

std::string field(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

// The member KEY of J, or an Error naming the field.
const nlohmann::json& require(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected an object", where.empty() ? "leaderboard" : where));
  if (!j.contains(key)) throw Error(fmt::format("{}: missing required field", field(where, key)));
  return j.at(key);
}

// Runs READ; a JSON type error inside becomes an Error naming WHERE.
template <class Read>
void reading(const std::string& where, Read&& read) {
  try {
    read();
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

LeaderboardEntry entry_from_json(const nlohmann::json& j, const std::string& kernel, const std::string& shape,
                                 const std::string& where) {
  LeaderboardEntry e;
  try {
    // Entries are results without the kernel and shape their group already names.
    nlohmann::json full = j;
    full["kernel"] = kernel;
    full["shape"] = shape;
    static_cast<ConfigResult&>(e) = ConfigResult::from_json(full);
    e.rank = j.value("rank", 0);
    e.excluded = j.value("excluded", "");
  } catch (const std::exception& error) {
    throw Error(fmt::format("{}: {}", where, error.what()));
  }
  return e;
}

LeaderboardGroup group_from_json(const nlohmann::json& g, const std::string& where) {
  LeaderboardGroup group;
  reading(where, [&] {
    group.kernel = require(g, "kernel", where).get<std::string>();
    group.shape = require(g, "shape", where).get<std::string>();
    group.shape_fields = require(g, "shape_fields", where);
    if (g.contains("baseline")) group.baseline_preset = g.at("baseline").value("preset", "");
    group.determinism = g.value("determinism", nlohmann::json());
    group.retimed = g.value("retimed", nlohmann::json());
  });
  const auto& entries = require(g, "entries", where);
  for (std::size_t i = 0; i < entries.size(); ++i)
    group.entries.push_back(
        entry_from_json(entries.at(i), group.kernel, group.shape, fmt::format("{}.entries[{}]", where, i)));
  return group;
}

}  // namespace

int leaderboard_schema_version(const std::string& schema) {
  const std::string prefix = kLeaderboardSchemaPrefix;
  if (schema.rfind(prefix, 0) != 0) return 0;
  const std::string number = schema.substr(prefix.size());
  if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) return 0;
  return number.size() > 6 ? 0 : std::stoi(number);
}

std::vector<const LeaderboardEntry*> LeaderboardGroup::ranked() const {
  std::vector<const LeaderboardEntry*> out;
  for (const auto& e : entries)
    if (e.rank > 0 && e.status == Status::ok && e.timing) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->rank < b->rank; });
  return out;
}

const LeaderboardEntry* LeaderboardGroup::best() const {
  const auto ok = ranked();
  return ok.empty() ? nullptr : ok.front();
}

const LeaderboardEntry* LeaderboardGroup::find(const std::string& key) const {
  for (const auto& e : entries)
    if (config_key(e.job.config) == key) return &e;
  return nullptr;
}

const LeaderboardEntry* LeaderboardGroup::baseline() const {
  const LeaderboardEntry* found = nullptr;
  if (!baseline_preset.empty())
    for (const auto& e : entries)
      if (e.job.preset == baseline_preset) found = &e;
  return found;
}

std::map<std::string, int> LeaderboardGroup::counts() const {
  std::map<std::string, int> n;
  for (const auto& e : entries) ++n[status_name(e.status)];
  return n;
}

std::vector<std::string> LeaderboardGroup::param_names() const {
  std::vector<std::string> names;
  if (!entries.empty())
    for (const auto& [name, _] : entries.front().job.config) names.push_back(name);
  return names;
}

const LeaderboardGroup* Leaderboard::find_group(const std::string& kernel, const std::string& shape) const {
  for (const auto& g : groups)
    if (g.kernel == kernel && g.shape == shape) return &g;
  return nullptr;
}

std::string Leaderboard::label() const { return fmt::format("{} ({}), {}", device.name, device.id, file.string()); }

void to_json(nlohmann::json& j, const LeaderboardEntry& e) {
  j = e.ConfigResult::to_json();
  j.erase("kernel");
  j.erase("shape");
  if (!e.excluded.empty()) j["excluded"] = e.excluded;
  else if (e.rank > 0) j["rank"] = e.rank;
}

void from_json(const nlohmann::json& j, LeaderboardEntry& e) {
  e = entry_from_json(j, j.value("kernel", ""), j.value("shape", ""), "entry");
}

void to_json(nlohmann::json& j, const LeaderboardGroup& g) {
  j = nlohmann::json::object();
  j["kernel"] = g.kernel;
  j["shape"] = g.shape;
  j["shape_fields"] = g.shape_fields;
  j["counts"] = g.counts();
  j["entries"] = g.entries;
  const auto excluded = std::count_if(g.entries.begin(), g.entries.end(), [](const auto& e) { return !e.excluded.empty(); });
  if (excluded > 0) j["excluded"] = excluded;
  if (!g.determinism.is_null()) j["determinism"] = g.determinism;
  if (!g.retimed.is_null()) j["retimed"] = g.retimed;
  if (auto ties = ties_summary(g.entries); !ties.is_null()) j["ties"] = std::move(ties);
  const LeaderboardEntry* best = g.best();
  if (best) {
    j["best"] = {{"key", config_key(best->job.config)},
                 {"preset", best->job.preset},
                 {"median_ms", best->timing->median_ms},
                 {"gflops", best->gflops},
                 {"gbps", best->gbps}};
    j["flops"] = best->flops;
    j["bytes"] = best->bytes;
  }
  if (!g.baseline_preset.empty()) {
    nlohmann::json base = {{"preset", g.baseline_preset}};
    if (const LeaderboardEntry* b = g.baseline()) {
      base["key"] = config_key(b->job.config);
      base["status"] = status_name(b->status);
      if (b->status == Status::ok && b->timing && best) {
        base["median_ms"] = b->timing->median_ms;
        base["best_speedup"] = b->timing->median_ms / best->timing->median_ms;
      }
    }
    j["baseline"] = std::move(base);
  }
}

void from_json(const nlohmann::json& j, LeaderboardGroup& g) { g = group_from_json(j, "group"); }

void to_json(nlohmann::json& j, const Leaderboard& lb) {
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& s : lb.sources) {
    nlohmann::json& source = sources[s.backend] = {{"path", s.path}, {"sha256", s.sha256}};
    if (s.files.empty()) continue;
    source["files"] = s.files;
  }
  j = {{"schema", kLeaderboardSchema},
       {"attn_tune", {{"version", lb.attn_tune_version}, {"git_commit", lb.git_commit}}},
       {"created_utc", lb.created_utc},
       {"command", lb.command},
       {"complete", lb.complete},
       {"device", lb.device.to_json()},
       {"backend", lb.device.backend},
       {"spec",
        {{"path", lb.spec_path},
         {"name", lb.spec_name},
         {"sha256", lb.spec_sha256},
         {"operation", lb.operation},
         {"shape_filter", lb.shape_filter}}},
       {"sources", sources},
       {"settings", lb.settings.to_json()},
       {"tolerance", lb.tolerance},
       {"groups", lb.groups}};
  if (!lb.started_utc.empty()) j["started_utc"] = lb.started_utc;
  if (!lb.resumes.empty()) j["resumes"] = lb.resumes;
  if (!lb.devices.empty()) j["devices"] = lb.devices;
  if (!lb.shard.whole()) j["shard"] = lb.shard;
  if (!lb.merged_from.empty()) j["merged_from"] = lb.merged_from;
  if (!lb.missing.empty()) j["missing"] = lb.missing;
}

void from_json(const nlohmann::json& j, Leaderboard& lb) {
  if (!j.is_object()) throw Error("expected a JSON object");
  const std::string schema = j.value("schema", "");
  lb.schema_version = leaderboard_schema_version(schema);
  if (lb.schema_version == 0)
    throw Error(
        fmt::format("schema: expected '{}' (a leaderboard written by attn-tune sweep), got '{}'; Kernel "
                    "Tuner cache files and T4 results documents are read too",
                    kLeaderboardSchema, schema));
  if (lb.schema_version > kLeaderboardVersion)
    throw Error(
        fmt::format("schema: '{}' is newer than this attn-tune reads ('{}'): update attn-tune", schema, kLeaderboardSchema));
  reading("leaderboard", [&] {
    const auto& tool = require(j, "attn_tune", "");
    lb.attn_tune_version = tool.value("version", "");
    lb.git_commit = tool.value("git_commit", "");
    lb.created_utc = j.value("created_utc", "");
    lb.started_utc = j.value("started_utc", "");
    lb.command = j.value("command", "");
    lb.resumes = j.value("resumes", std::vector<LeaderboardResume>{});
    lb.complete = j.value("complete", true);
  });
  reading("distribution", [&] {
    lb.devices = j.value("devices", std::vector<std::string>{});
    lb.shard = j.value("shard", lb.shard);
    lb.merged_from = j.value("merged_from", std::vector<LeaderboardPart>{});
    lb.missing = j.value("missing", std::vector<std::string>{});
  });
  reading("device", [&] { lb.device = DeviceInfo::from_json(require(j, "device", "")); });
  reading("spec", [&] {
    const auto& spec = require(j, "spec", "");
    lb.spec_path = spec.value("path", "");
    lb.spec_name = require(spec, "name", "spec").get<std::string>();
    lb.spec_sha256 = spec.value("sha256", "");
    lb.operation = spec.value("operation", "");
    lb.shape_filter = spec.value("shape_filter", "");
  });
  reading("sources", [&] {
    const nlohmann::json sources = j.value("sources", nlohmann::json::object());
    for (const auto& [backend, s] : sources.items()) {
      LeaderboardSource source{backend, s.value("path", ""), s.value("sha256", ""), {}};
      source.files = s.value("files", std::vector<SourceFile>{});
      lb.sources.push_back(std::move(source));
    }
  });
  reading("settings", [&] {
    if (j.contains("settings")) lb.settings = RunSettings::from_json(j.at("settings"));
  });
  reading("tolerance", [&] { lb.tolerance = j.value("tolerance", Tolerance{}); });
  const auto& groups = require(j, "groups", "");
  if (!groups.is_array()) throw Error("groups: expected an array");
  for (std::size_t i = 0; i < groups.size(); ++i)
    lb.groups.push_back(group_from_json(groups.at(i), fmt::format("groups[{}]", i)));
}

}  // namespace attn

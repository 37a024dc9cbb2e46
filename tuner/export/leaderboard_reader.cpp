#include "tuner/export/leaderboard_reader.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/run/leaderboard.hpp"

namespace attn {
namespace {

// The member KEY of J, or a UsageError naming the file and the field.
const nlohmann::json& require(const nlohmann::json& j, const char* key, const std::string& file, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw UsageError(fmt::format("{}: {}{}: missing required field", file, where.empty() ? "" : where + ".", key));
  return j.at(key);
}

LeaderboardGroup read_group(const nlohmann::json& g, const std::string& file, const std::string& where) {
  LeaderboardGroup group;
  group.kernel = require(g, "kernel", file, where).get<std::string>();
  group.shape = require(g, "shape", file, where).get<std::string>();
  group.shape_fields = require(g, "shape_fields", file, where);
  if (g.contains("baseline")) group.baseline_preset = g.at("baseline").value("preset", "");
  std::size_t index = 0;
  for (nlohmann::json e : require(g, "entries", file, where)) {
    // Entries are results without the kernel and shape their group already names.
    e["kernel"] = group.kernel;
    e["shape"] = group.shape;
    try {
      group.entries.push_back(ConfigResult::from_json(e));
    } catch (const std::exception& error) {
      throw UsageError(fmt::format("{}: {}.entries[{}]: {}", file, where, index, error.what()));
    }
    ++index;
  }
  return group;
}

}  // namespace

std::vector<const ConfigResult*> LeaderboardGroup::ranked() const {
  std::vector<const ConfigResult*> ok;
  for (const auto& e : entries)
    if (e.status == Status::ok && e.timing) ok.push_back(&e);
  return ok;
}

const ConfigResult* LeaderboardGroup::best() const {
  const auto ok = ranked();
  return ok.empty() ? nullptr : ok.front();
}

const ConfigResult* LeaderboardGroup::find(const std::string& key) const {
  for (const auto& e : entries)
    if (config_key(e.job.config) == key) return &e;
  return nullptr;
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

Leaderboard read_leaderboard(const std::filesystem::path& path) {
  const std::string file = path.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON: {}", file, e.what()));
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const std::string schema = j.is_object() ? j.value("schema", "") : "";
  if (schema != kLeaderboardSchema)
    throw UsageError(fmt::format("{}: schema: expected '{}' (a leaderboard written by attn-tune sweep), got '{}'", file,
                                 kLeaderboardSchema, schema));
  try {
    Leaderboard lb;
    lb.file = path;
    const auto& tool = require(j, "attn_tune", file, "");
    lb.attn_tune_version = tool.value("version", "");
    lb.git_commit = tool.value("git_commit", "");
    lb.created_utc = j.value("created_utc", "");
    lb.command = j.value("command", "");
    lb.complete = j.value("complete", true);
    lb.device = DeviceInfo::from_json(require(j, "device", file, ""));
    const auto& spec = require(j, "spec", file, "");
    lb.spec_path = spec.value("path", "");
    lb.spec_name = require(spec, "name", file, "spec").get<std::string>();
    lb.spec_sha256 = spec.value("sha256", "");
    lb.operation = spec.value("operation", "");
    lb.shape_filter = spec.value("shape_filter", "");
    const nlohmann::json sources = j.value("sources", nlohmann::json::object());
    for (const auto& [backend, s] : sources.items()) {
      LeaderboardSource source{backend, s.value("path", ""), s.value("sha256", ""), {}};
      for (const auto& f : s.value("files", nlohmann::json::array()))
        source.files.push_back({f.value("path", ""), f.value("sha256", "")});
      lb.sources.push_back(std::move(source));
    }
    if (j.contains("settings")) lb.settings = RunSettings::from_json(j.at("settings"));
    const auto& groups = require(j, "groups", file, "");
    for (std::size_t i = 0; i < groups.size(); ++i)
      lb.groups.push_back(read_group(groups.at(i), file, fmt::format("groups[{}]", i)));
    return lb;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed leaderboard: {}", file, e.what()));
  }
}

std::vector<Leaderboard> read_leaderboards(const std::vector<std::filesystem::path>& files) {
  std::vector<Leaderboard> all;
  for (const auto& f : files) all.push_back(read_leaderboard(f));
  return all;
}

}  // namespace attn

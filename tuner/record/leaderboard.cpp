#include "tuner/record/leaderboard.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "tuner/core/source_identity.hpp"
#include "tuner/core/version.hpp"
#include "tuner/record/determinism_summary.hpp"

namespace attn {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<LeaderboardSource> source_identities(const Spec& spec) {
  std::vector<LeaderboardSource> sources;
  for (const auto& [backend, path] : spec.sources) {
    // The source and every file it includes: a changed header is a changed kernel.
    SourceIdentity identity = source_identity(path, spec.include_dirs);
    sources.push_back({backend, path.string(), identity.sha256, std::move(identity.files)});
  }
  return sources;
}

std::vector<ConfigResult> ranked(std::vector<ConfigResult> results) {
  std::stable_sort(results.begin(), results.end(), [](const ConfigResult& a, const ConfigResult& b) {
    const bool a_ok = a.status == Status::ok, b_ok = b.status == Status::ok;
    if (a_ok != b_ok) return a_ok;
    // A tied set (tuner/record/ties.hpp) ranks first, in the tie rule's order: its winner is rank 1.
    if (a_ok && a.tie.has_value() != b.tie.has_value()) return a.tie.has_value();
    if (a_ok && a.tie) return a.tie->order < b.tie->order;
    // Winners come from full measurements: a staged sweep's confirmed results rank before its screened ones.
    if (a_ok && fully_measured(a.stage) != fully_measured(b.stage)) return fully_measured(a.stage);
    if (a_ok) return a.timing->median_ms < b.timing->median_ms;
    return static_cast<int>(a.status) < static_cast<int>(b.status);
  });
  return results;
}

LeaderboardGroup ranked_group(std::string kernel, std::string shape, nlohmann::json shape_fields,
                              std::vector<ConfigResult> results, const std::vector<std::string>& require,
                              std::string baseline_preset) {
  results = ranked(std::move(results));
  // A configuration failing a required check (--require) keeps its time but does not rank.
  std::map<std::string, std::string> excluded;  // job key -> why
  for (const auto& r : results)
    if (std::string why; r.status == Status::ok && !passes_checks(r.checks, require, &why)) excluded[r.job.key()] = why;
  std::stable_partition(results.begin(), results.end(),
                        [&](const ConfigResult& r) { return r.status == Status::ok && !excluded.contains(r.job.key()); });

  LeaderboardGroup g;
  g.kernel = std::move(kernel);
  g.shape = std::move(shape);
  g.shape_fields = std::move(shape_fields);
  g.baseline_preset = std::move(baseline_preset);
  if (auto d = determinism_summary(results, require); !d.is_null()) g.determinism = std::move(d);
  int rank = 0;
  for (auto& r : results) {
    LeaderboardEntry e{std::move(r)};
    if (auto it = excluded.find(e.job.key()); it != excluded.end()) e.excluded = it->second;
    else if (e.status == Status::ok) e.rank = ++rank;
    g.entries.push_back(std::move(e));
  }
  return g;
}

Leaderboard build_leaderboard(const LeaderboardContext& ctx, const std::vector<ConfigResult>& results) {
  const Spec& spec = ctx.spec;
  Leaderboard lb;
  lb.attn_tune_version = kVersion;
  lb.git_commit = kGitCommit;
  lb.created_utc = utc_now();
  lb.started_utc = ctx.started_utc.empty() ? lb.created_utc : ctx.started_utc;
  lb.command = ctx.command;
  lb.resumes = ctx.resumes;
  lb.complete = ctx.complete;
  lb.device = ctx.device;
  lb.spec_path = spec.path.string();
  lb.spec_name = spec.name;
  lb.spec_sha256 = spec.sha256;
  lb.operation = spec.operation;
  lb.shape_filter = ctx.shape_filter;
  lb.sources = source_identities(spec);
  lb.settings = ctx.settings;
  lb.tolerance = spec.tolerance;

  for (const auto& kernel : spec.kernels) {
    for (const auto& shape_name : kernel.shapes) {
      std::vector<ConfigResult> group;
      for (const auto& r : results)
        if (r.job.kernel == kernel.name && r.job.shape == shape_name) group.push_back(r);
      if (group.empty()) continue;
      lb.groups.push_back(ranked_group(kernel.name, shape_name, spec.shape(shape_name).fields, std::move(group),
                                       ctx.settings.determinism.require, kernel.baseline));
    }
  }
  return lb;
}

}  // namespace attn

#include "tuner/run/leaderboard.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "tuner/run/determinism_summary.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/core/version.hpp"

namespace attn {
namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::vector<ConfigResult> ranked(std::vector<ConfigResult> results) {
  std::stable_sort(results.begin(), results.end(), [](const ConfigResult& a, const ConfigResult& b) {
    const bool a_ok = a.status == Status::ok, b_ok = b.status == Status::ok;
    if (a_ok != b_ok) return a_ok;
    if (a_ok) return a.timing->median_ms < b.timing->median_ms;
    return static_cast<int>(a.status) < static_cast<int>(b.status);
  });
  return results;
}

nlohmann::json build_leaderboard(const LeaderboardContext& ctx, const std::vector<ConfigResult>& results) {
  const Spec& spec = ctx.spec;
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [backend, path] : spec.sources) {
    // The source and every file it includes: a changed header is a changed kernel.
    const SourceIdentity identity = source_identity(path, spec.include_dirs);
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : identity.files) files.push_back({{"path", f.path.string()}, {"sha256", f.sha256}});
    sources[backend] = {{"path", path.string()}, {"sha256", identity.sha256}, {"files", std::move(files)}};
  }

  nlohmann::json groups = nlohmann::json::array();
  for (const auto& kernel : spec.kernels) {
    for (const auto& shape_name : kernel.shapes) {
      std::vector<ConfigResult> group;
      for (const auto& r : results)
        if (r.job.kernel == kernel.name && r.job.shape == shape_name) group.push_back(r);
      if (group.empty()) continue;
      group = ranked(std::move(group));
      // A configuration failing a required check (--require) keeps its time but does not rank.
      std::map<std::string, std::string> excluded;  // job key -> why
      for (const auto& r : group)
        if (std::string why; r.status == Status::ok && !passes_checks(r.checks, ctx.settings.determinism.require, &why))
          excluded[r.job.key()] = why;
      std::stable_partition(group.begin(), group.end(),
                            [&](const ConfigResult& r) { return r.status == Status::ok && !excluded.contains(r.job.key()); });

      nlohmann::json g;
      g["kernel"] = kernel.name;
      g["shape"] = shape_name;
      g["shape_fields"] = spec.shape(shape_name).fields;
      std::map<std::string, int> counts;
      nlohmann::json entries = nlohmann::json::array();
      int rank = 0;
      for (const auto& r : group) {
        ++counts[status_name(r.status)];
        nlohmann::json e = r.to_json();
        e.erase("kernel");
        e.erase("shape");
        if (excluded.contains(r.job.key())) e["excluded"] = excluded.at(r.job.key());
        else if (r.status == Status::ok) e["rank"] = ++rank;
        entries.push_back(std::move(e));
      }
      g["counts"] = counts;
      if (!excluded.empty()) g["excluded"] = excluded.size();
      if (auto d = determinism_summary(group, ctx.settings.determinism.require); !d.is_null()) g["determinism"] = d;
      if (rank > 0) {
        const ConfigResult& best = group.front();
        g["best"] = {{"key", config_key(best.job.config)}, {"preset", best.job.preset},
                     {"median_ms", best.timing->median_ms}, {"gflops", best.gflops}, {"gbps", best.gbps}};
        g["flops"] = best.flops;
        g["bytes"] = best.bytes;
      }
      if (!kernel.baseline.empty()) {
        nlohmann::json base = {{"preset", kernel.baseline}};
        for (const auto& r : group) {
          if (r.job.preset != kernel.baseline) continue;
          base["key"] = config_key(r.job.config);
          base["status"] = status_name(r.status);
          if (r.status == Status::ok && rank > 0) {
            base["median_ms"] = r.timing->median_ms;
            base["best_speedup"] = r.timing->median_ms / group.front().timing->median_ms;
          }
        }
        g["baseline"] = base;
      }
      g["entries"] = std::move(entries);
      groups.push_back(std::move(g));
    }
  }

  return {{"schema", kLeaderboardSchema},
          {"attn_tune", {{"version", kVersion}, {"git_commit", kGitCommit}}},
          {"created_utc", utc_now()},
          {"command", ctx.command},
          {"complete", ctx.complete},
          {"device", ctx.device.to_json()},
          {"backend", ctx.device.backend},
          {"spec", {{"path", spec.path.string()}, {"name", spec.name}, {"sha256", spec.sha256},
                    {"operation", spec.operation}, {"shape_filter", ctx.shape_filter}}},
          {"sources", sources},
          {"settings", ctx.settings.to_json()},
          {"tolerance", {{"rel_l2", spec.tolerance.rel_l2}, {"max_abs", spec.tolerance.max_abs},
                         {"max_rows", spec.tolerance.max_rows}}},
          {"groups", groups}};
}

std::string leaderboard_table(const nlohmann::json& lb, int top) {
  std::string out;
  const auto& dev = lb.at("device");
  out += fmt::format("device {} ({}, {}){}\n", dev.value("name", ""), dev.value("id", ""), dev.value("platform", ""),
                     lb.value("complete", true) ? "" : "  [INCOMPLETE: interrupted, resume with --resume]");
  for (const auto& g : lb.at("groups")) {
    out += fmt::format("\n{} / {}  ({})\n", g.at("kernel").get<std::string>(), g.at("shape").get<std::string>(),
                       shape_summary(g.at("shape_fields")));
    const bool checked = g.contains("determinism");
    auto label_of = [](const nlohmann::json& e) {
      std::string label = e.at("key").get<std::string>();
      if (!e.value("preset", "").empty()) label += fmt::format(" ({})", e.value("preset", ""));
      return label;
    };
    std::size_t width = std::string("configuration").size();  // the longest label shown sets the column
    int counted = 0;
    for (const auto& e : g.at("entries"))
      if (e.contains("rank") && counted++ < top) width = std::max(width, label_of(e).size());
    out += fmt::format("{:>4}  {:<{}} {:>10} {:>10} {:>7} {:>10} {:>9} {:>9} {:>8}{}\n", "rank", "configuration", width,
                       "median ms", "min ms", "noise", "GFLOP/s", "GB/s", "priv B", "local B", checked ? "  det/bi/cg" : "");
    int shown = 0;
    for (const auto& e : g.at("entries")) {
      if (!e.contains("rank") || shown++ >= top) continue;
      const auto& t = e.at("timing");
      long long priv = 0, local = 0;
      for (const auto& [_, r] : e.at("resources").items()) {
        priv = std::max(priv, r.value("private_mem_bytes", 0LL));
        local = std::max(local, r.value("static_local_bytes", 0LL));
      }
      out += fmt::format("{:>4}  {:<{}} {:>10.4f} {:>10.4f} {:>6.2f}% {:>10.1f} {:>9.2f} {:>9} {:>8}{}\n",
                         e.at("rank").get<int>(), label_of(e), width, t.at("median_ms").get<double>(), t.at("min_ms").get<double>(),
                         100 * t.at("rel_noise").get<double>(), e.value("gflops", 0.0), e.value("gbps", 0.0), priv, local,
                         checked ? "  " + checks_cell(e) : "");
    }
    if (g.contains("baseline")) {
      const auto& b = g.at("baseline");
      if (b.contains("best_speedup"))
        out += fmt::format("best vs baseline {} ({}): {:.2f}x faster\n", b.value("preset", ""), b.value("key", ""),
                           b.at("best_speedup").get<double>());
      else
        out += fmt::format("baseline {}: {}\n", b.value("preset", ""), b.value("status", "not in this sweep"));
    }
    if (checked) out += determinism_summary_line(g.at("determinism"));
    std::string not_ranked;
    if (g.contains("excluded")) not_ranked = fmt::format("{} excluded by --require", g.at("excluded").get<int>());
    for (const auto& [status, n] : g.at("counts").items())
      if (status != "ok") not_ranked += fmt::format("{}{} {}", not_ranked.empty() ? "" : ", ", n.get<int>(), status);
    if (!not_ranked.empty()) out += fmt::format("not ranked: {}\n", not_ranked);
  }
  return out;
}

}  // namespace attn

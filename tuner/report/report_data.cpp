#include "tuner/report/report_data.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace attn {
namespace {

std::optional<ParamValue> param(const Config& config, const std::string& name) {
  for (const auto& [n, v] : config)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace

std::optional<Heatmap> heatmap_of(const LeaderboardGroup& group, const std::string& x, const std::string& y) {
  const auto names = group.param_names();
  if (names.size() < 2) return std::nullopt;
  Heatmap map;
  const bool has_both = x != y && std::count(names.begin(), names.end(), x) && std::count(names.begin(), names.end(), y);
  map.x_param = has_both ? x : names[0];
  map.y_param = has_both ? y : names[1];
  if (!has_both)
    map.axes_note = fmt::format("{} × {} asked for, but this kernel's parameters are {}", x, y, fmt::join(names, ", "));

  std::set<ParamValue> xs, ys;
  for (const auto& e : group.entries) {
    xs.insert(*param(e.job.config, map.x_param));
    ys.insert(*param(e.job.config, map.y_param));
  }
  map.xs.assign(xs.begin(), xs.end());
  map.ys.assign(ys.begin(), ys.end());
  map.cells.assign(map.ys.size(), std::vector<HeatmapCell>(map.xs.size()));

  const ConfigResult* best = group.best();
  std::map<std::pair<std::size_t, std::size_t>, std::map<std::string, int>> failures;  // cell -> status -> count
  for (const auto& e : group.entries) {
    const auto xi = std::find(map.xs.begin(), map.xs.end(), *param(e.job.config, map.x_param)) - map.xs.begin();
    const auto yi = std::find(map.ys.begin(), map.ys.end(), *param(e.job.config, map.y_param)) - map.ys.begin();
    HeatmapCell& cell = map.cells[yi][xi];
    if (e.status != Status::ok || !e.timing) {
      ++failures[{yi, xi}][status_name(e.status)];
      continue;
    }
    if (!cell.median_ms || e.timing->median_ms < *cell.median_ms) {
      cell.median_ms = e.timing->median_ms;
      cell.relative = e.timing->median_ms / best->timing->median_ms;
      cell.best_key = config_key(e.job.config);
    }
  }
  for (const auto& [at, counts] : failures) {
    HeatmapCell& cell = map.cells[at.first][at.second];
    if (cell.median_ms) continue;
    std::vector<std::string> parts;
    for (const auto& [status, n] : counts) parts.push_back(fmt::format("{} {}", n, status));
    cell.note = fmt::format("{}", fmt::join(parts, ", "));
  }
  return map;
}

std::vector<SpreadPoint> spread_of(const LeaderboardGroup& group) {
  std::vector<SpreadPoint> points;
  const ConfigResult* best = group.best();
  if (!best) return points;
  const double b = best->timing->median_ms;
  for (const ConfigResult* r : group.ranked()) {
    const auto& t = *r->timing;
    points.push_back({t.median_ms / b, (t.q1_ms > 0 ? t.q1_ms : t.median_ms) / b, (t.q3_ms > 0 ? t.q3_ms : t.median_ms) / b,
                      r == best, !group.baseline_preset.empty() && r->job.preset == group.baseline_preset,
                      config_key(r->job.config)});
  }
  return points;
}

Ceilings ceilings_of(const Leaderboard& lb, const LeaderboardGroup& group, const Ceilings& override_) {
  Ceilings c = known_ceilings(lb.device, group.shape_fields.value("dtype", ""));
  if (override_.gflops > 0) c.gflops = override_.gflops;
  if (override_.gbps > 0) c.gbps = override_.gbps;
  if (override_.gflops > 0 || override_.gbps > 0)
    c.source = c.source.empty() ? override_.source : override_.source + "; the rest " + c.source;
  return c;
}

std::vector<CrossComparison> cross_comparisons(const std::vector<Leaderboard>& lbs) {
  std::vector<CrossComparison> out;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const auto& lb : lbs) {
    for (const auto& g : lb.groups) {
      if (!seen.insert({lb.spec_name, g.kernel, g.shape}).second) continue;
      CrossComparison c{lb.spec_name, g.kernel, g.shape, {}, {}};
      std::vector<const LeaderboardGroup*> groups;
      for (const auto& other : lbs) {
        const LeaderboardGroup* og = other.spec_name == lb.spec_name ? other.find_group(g.kernel, g.shape) : nullptr;
        if (og && og->shape_fields != g.shape_fields) og = nullptr;  // a shape of the same name, but another problem
        groups.push_back(og);
        c.best.push_back(og ? og->best() : nullptr);
      }
      if (std::count_if(c.best.begin(), c.best.end(), [](auto* b) { return b != nullptr; }) < 2) continue;
      for (std::size_t i = 0; i < lbs.size(); ++i) {
        std::vector<std::optional<double>> row(lbs.size());
        for (std::size_t j = 0; j < lbs.size() && c.best[i]; ++j) {
          if (!c.best[j]) continue;
          const ConfigResult* there = groups[j]->find(config_key(c.best[i]->job.config));
          if (there && there->status == Status::ok && there->timing)
            row[j] = there->timing->median_ms / c.best[j]->timing->median_ms;
        }
        c.portability.push_back(std::move(row));
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::string format_ms(double ms) { return fmt::format("{:.4g}", ms); }

std::optional<long long> max_resource(const ConfigResult& r, std::optional<long long> KernelResources::*field) {
  std::optional<long long> most;
  for (const auto& [_, res] : r.resources)
    if (const auto& v = res.*field; v && (!most || *v > *most)) most = v;
  return most;
}

}  // namespace attn

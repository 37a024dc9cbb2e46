#include "tuner/report/markdown_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/version.hpp"

namespace attn {
namespace {

std::string cell(std::string s) {
  std::replace(s.begin(), s.end(), '|', '/');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string heatmap_table(const Heatmap& map) {
  std::string s =
      fmt::format("Median ms over {} (columns) × {} (rows), best over the other parameters; **bold**: the best{}\n\n",
                  map.x_param, map.y_param, map.axes_note.empty() ? "" : " (" + map.axes_note + ")");
  s += fmt::format("| {} \\ {} |", map.y_param, map.x_param);
  for (const ParamValue& x : map.xs) s += fmt::format(" {} |", x);
  s += "\n|--:|";
  for (std::size_t i = 0; i < map.xs.size(); ++i) s += "--:|";
  s += "\n";
  for (std::size_t yi = 0; yi < map.ys.size(); ++yi) {
    s += fmt::format("| **{}** |", map.ys[yi]);
    for (const auto& c : map.cells[yi]) {
      if (!c.median_ms) s += fmt::format(" {} |", c.note.empty() ? "·" : "_" + cell(c.note) + "_");
      else if (c.relative <= 1.0000001) s += fmt::format(" **{}** |", format_ms(*c.median_ms));
      else s += fmt::format(" {} ×{:.2f} |", format_ms(*c.median_ms), c.relative);
    }
    s += "\n";
  }
  return s + "\n";
}

// Quantiles of time / best over the ranked configurations: how much the choice matters.
std::string spread_line(const std::vector<SpreadPoint>& points) {
  if (points.size() < 2) return "";
  auto at = [&](double q) { return points[static_cast<std::size_t>(q * double(points.size() - 1) + 0.5)].relative; };
  std::string s =
      fmt::format("Spread of {} ranked configurations, time / best: p25 ×{:.2f}, median ×{:.2f}, p75 ×{:.2f}, worst ×{:.2f}",
                  points.size(), at(0.25), at(0.5), at(0.75), points.back().relative);
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].baseline) s += fmt::format("; baseline is #{} at ×{:.2f}", i + 1, points[i].relative);
  return s + ".\n\n";
}

std::string group_markdown(const Leaderboard& lb, const LeaderboardGroup& g, const ReportOptions& opt) {
  std::string s = fmt::format("### {} / {}\n\n`{}`\n\n", g.kernel, g.shape, shape_summary(g.shape_fields));
  const auto ranked = g.ranked();
  const Ceilings c = ceilings_of(lb, g, opt.ceilings);
  if (!ranked.empty()) {
    const ConfigResult& best = *ranked.front();
    s += fmt::format("Best `{}`{}: **{} ms**, {:.1f} GFLOP/s, {:.1f} GB/s", config_key(best.job.config),
                     best.job.preset.empty() ? "" : " (" + best.job.preset + ")", format_ms(best.timing->median_ms),
                     best.gflops, best.gbps);
    if (const double roof = attainable_gflops(c, best.flops, best.bytes); roof > 0)
      s += fmt::format(", {:.1f}% of the roofline", 100 * best.gflops / roof);
    s += ".\n\n";
    if (const auto map = heatmap_of(g, opt.x_param, opt.y_param)) s += heatmap_table(*map);
    s += spread_line(spread_of(g));
    s += "| rank | configuration | preset | median ms | q1–q3 ms | noise | × best | GFLOP/s | GB/s "
         "|\n|--:|---|---|--:|--:|--:|--:|--:|--:|\n";
    const std::size_t shown = opt.top > 0 ? std::min<std::size_t>(ranked.size(), opt.top) : ranked.size();
    for (std::size_t i = 0; i < shown; ++i) {
      const ConfigResult& r = *ranked[i];
      const auto& t = *r.timing;
      s += fmt::format("| {} | `{}` | {} | {} | {}–{} | {:.2f}% | {:.3f} | {:.1f} | {:.1f} |\n", i + 1,
                       config_key(r.job.config), r.job.preset, format_ms(t.median_ms), format_ms(t.q1_ms),
                       format_ms(t.q3_ms), 100 * t.rel_noise, t.median_ms / best.timing->median_ms, r.gflops, r.gbps);
    }
    if (shown < ranked.size()) s += fmt::format("\n{} more not shown (--top {}).\n", ranked.size() - shown, opt.top);
    s += "\n";
  } else {
    s += "Nothing ranked.\n\n";
  }
  std::vector<const ConfigResult*> failed;
  for (const auto& e : g.entries)
    if (e.status != Status::ok) failed.push_back(&e);
  if (!failed.empty()) {
    s += "Not ranked:\n\n| status | configuration | reason |\n|---|---|---|\n";
    for (const auto* f : failed) {
      std::string reason = cell(f->reason);
      if (reason.size() > 200) reason.replace(200, std::string::npos, " …");
      s += fmt::format("| {} | `{}` | {} |\n", status_name(f->status), config_key(f->job.config), reason);
    }
    s += "\n";
  }
  return s;
}

}  // namespace

std::string markdown_report(const std::vector<Leaderboard>& lbs, const ReportOptions& opt) {
  std::string s = fmt::format("# attn-tune report\n\n{} leaderboard{}, written by attn-tune {} ({}): `{}`\n\n", lbs.size(),
                              lbs.size() == 1 ? "" : "s", kVersion, kGitCommit, opt.command);
  for (std::size_t i = 0; i < lbs.size(); ++i) {
    const auto& lb = lbs[i];
    s += fmt::format("## #{} {} on {}\n\n", i + 1, lb.spec_name, lb.device.name);
    s += fmt::format("- device: {} ({}, {}, {}), driver {}\n", lb.device.name, lb.device.id, lb.device.vendor,
                     lb.device.arch, lb.device.driver_version);
    s += fmt::format("- spec: `{}` sha256 `{}`\n", lb.spec_path, lb.spec_sha256);
    for (const auto& src : lb.sources)
      s += fmt::format("- source {}: `{}` sha256 `{}`\n", src.backend, src.path, src.sha256);
    s += fmt::format("- run: {}, attn-tune {} ({}){}; file `{}`\n", lb.created_utc, lb.attn_tune_version, lb.git_commit,
                     lb.complete ? "" : ", INCOMPLETE (interrupted)", lb.file.string());
    s += fmt::format("- command: `{}`\n", lb.command);
    std::vector<std::string> sources;
    for (const auto& g : lb.groups)
      if (const auto c = ceilings_of(lb, g, opt.ceilings);
          !c.source.empty() && std::find(sources.begin(), sources.end(), c.source) == sources.end())
        sources.push_back(c.source);
    s += fmt::format("- roofline ceilings: {}\n\n", sources.empty()
                                                        ? "none known for this device (--peak-gflops, --peak-gbps)"
                                                        : fmt::format("{}", fmt::join(sources, "; ")));
    for (const auto& g : lb.groups) s += group_markdown(lb, g, opt);
  }

  const auto comparisons = cross_comparisons(lbs);
  if (!comparisons.empty()) {
    s += "## Across leaderboards\n\nEach leaderboard's best, and its time in the others over their best (– where it did not "
         "rank).\n\n";
    for (const auto& c : comparisons) {
      s += fmt::format("### {} / {} / {}\n\n| leaderboard | best configuration | median ms |", c.spec, c.kernel, c.shape);
      std::string rule = "|---|---|--:|";
      for (std::size_t j = 0; j < lbs.size(); ++j) {
        if (!c.best[j]) continue;
        s += fmt::format(" on #{} |", j + 1);
        rule += "--:|";
      }
      s += "\n" + rule + "\n";
      for (std::size_t i = 0; i < lbs.size(); ++i) {
        if (!c.best[i]) continue;
        s += fmt::format("| #{} {} | `{}` | {} |", i + 1, lbs[i].device.name, config_key(c.best[i]->job.config),
                         format_ms(c.best[i]->timing->median_ms));
        for (std::size_t j = 0; j < lbs.size(); ++j)
          if (c.best[j]) s += c.portability[i][j] ? fmt::format(" ×{:.3f} |", *c.portability[i][j]) : std::string(" – |");
        s += "\n";
      }
      s += "\n";
    }
  }
  return s;
}

}  // namespace attn

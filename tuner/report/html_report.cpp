#include "tuner/report/html_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/markup.hpp"
#include "tuner/core/version.hpp"
#include "tuner/report/html_tables.hpp"
#include "tuner/report/report_style.hpp"
#include "tuner/report/svg_plots.hpp"

namespace attn {
namespace {

std::string esc(const std::string& s) { return xml_escape(s); }

std::string group_id(std::size_t lb, std::size_t g) { return fmt::format("lb{}-g{}", lb, g); }

std::string leaderboard_facts(const Leaderboard& lb) {
  const auto& d = lb.device;
  const auto& t = lb.settings.timing;
  std::string s = "<dl class=\"facts\">\n";
  auto fact = [&](const std::string& k, const std::string& v) { s += fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, v); };
  fact("device", fmt::format("<b>{}</b> · {} · {} · {} · {} CUs @ {} MHz · {:.1f} GiB · driver {}", esc(d.name), esc(d.id),
                             esc(d.vendor), esc(d.arch), d.compute_units, d.clock_mhz,
                             double(d.global_mem_bytes) / (1 << 30), esc(d.driver_version)));
  fact("spec", fmt::format("<code>{}</code> · sha256 <code>{}</code>", esc(lb.spec_path), esc(lb.spec_sha256)));
  for (const auto& src : lb.sources)
    fact("source",
         fmt::format("{} <code>{}</code> · sha256 <code>{}</code>", esc(src.backend), esc(src.path), esc(src.sha256)));
  fact("timing", fmt::format("policy {} · {} warm-up · {}–{} samples until noise ≤ {:.2g}% or {} s · seed {}",
                             timing_policy_name(t.policy), t.warmup_runs, t.min_samples, t.max_samples, 100 * t.max_noise,
                             t.max_time_s, lb.settings.seed));
  fact("run", fmt::format("{} · attn-tune {} ({}){}", esc(lb.created_utc), esc(lb.attn_tune_version), esc(lb.git_commit),
                          lb.complete ? "" : " · <span class=\"pill bad\">incomplete: interrupted sweep</span>"));
  fact("command", fmt::format("<code>{}</code>", esc(lb.command)));
  fact("file", fmt::format("<code>{}</code>", esc(lb.file.string())));
  return s + "</dl>\n";
}

std::string headline(const Leaderboard& lb, const LeaderboardGroup& g, const ReportOptions& opt) {
  std::map<std::string, int> counts;
  for (const auto& e : g.entries) ++counts[status_name(e.status)];
  std::string pills;
  for (const auto& [status, n] : counts)
    pills += fmt::format("<span class=\"pill {}\">{} {}</span>",
                         status == "ok"        ? "good"
                         : status == "skipped" ? ""
                                               : "bad",
                         n, status);
  const ConfigResult* best = g.best();
  if (!best) return fmt::format("<p class=\"headline\"><span class=\"big\">nothing ranked</span> {}</p>\n", pills);
  std::string s = fmt::format(
      "<p class=\"headline\"><span class=\"big\">{} ms</span> best <code>{}</code>{} · {:.1f} GFLOP/s · {:.1f} GB/s",
      format_ms(best->timing->median_ms), esc(config_key(best->job.config)),
      best->job.preset.empty() ? "" : fmt::format(" ({})", esc(best->job.preset)), best->gflops, best->gbps);
  const Ceilings c = ceilings_of(lb, g, opt.ceilings);
  if (const double roof = attainable_gflops(c, best->flops, best->bytes); roof > 0)
    s += fmt::format(" · <b>{:.1f}%</b> of the roofline", 100 * best->gflops / roof);
  if (!g.baseline_preset.empty()) {
    for (const auto* r : g.ranked()) {
      if (r->job.preset != g.baseline_preset) continue;
      s += fmt::format(" · <b>{:.2f}×</b> faster than baseline {}", r->timing->median_ms / best->timing->median_ms,
                       esc(g.baseline_preset));
    }
  }
  return s + " " + pills + "</p>\n";
}

std::string roofline_block(const Leaderboard& lb, const ReportOptions& opt) {
  RooflineChart chart;
  std::vector<std::string> sources;
  for (const auto& g : lb.groups) {
    const auto ranked = g.ranked();
    if (ranked.empty()) continue;
    const int series = static_cast<int>(chart.series.size());
    chart.series.push_back(g.kernel + " / " + g.shape);
    for (const auto* r : ranked)
      if (r->bytes > 0 && r->gflops > 0)
        chart.points.push_back({r->flops / r->bytes, r->gflops, series, r == ranked.front(),
                                fmt::format("{} / {}: {}", g.kernel, g.shape, config_key(r->job.config))});
    const Ceilings c = ceilings_of(lb, g, opt.ceilings);
    if (std::find(sources.begin(), sources.end(), c.source) == sources.end() && !c.source.empty())
      sources.push_back(c.source);
    // One chart has one pair of ceilings: the first group's element type sets the compute one.
    if (chart.ceilings.gflops == 0 && chart.ceilings.gbps == 0) chart.ceilings = c;
  }
  if (chart.points.empty()) return "";
  std::string s =
      "<figure>" + svg_roofline(chart) +
      "<figcaption>Roofline: every ranked configuration's GFLOP/s "
      "(FlashAttention's FLOP count over the median) at its arithmetic intensity (FLOPs over bytes of each input "
      "read once and each output written once); larger dots are each shape's best. Ceilings: ";
  s += sources.empty() ? "none known for this device (pass --peak-gflops and --peak-gbps)"
                       : esc(fmt::format("{}", fmt::join(sources, "; ")));
  if (chart.ceilings.gflops > 0)
    s += fmt::format(" (compute ceiling drawn: {:.4g} GFLOP/s, for {})", chart.ceilings.gflops, esc(chart.series.front()));
  return s + ".</figcaption></figure>\n";
}

std::string group_section(const Leaderboard& lb, const LeaderboardGroup& g, const ReportOptions& opt,
                          const std::string& id) {
  std::string s = fmt::format("<section class=\"group\" id=\"{}\">\n<h3>{} / {} <span class=\"shape\">{}</span></h3>\n", id,
                              esc(g.kernel), esc(g.shape), esc(shape_summary(g.shape_fields)));
  s += headline(lb, g, opt);
  if (g.best()) {
    s += "<div class=\"charts\">\n";
    if (const auto map = heatmap_of(g, opt.x_param, opt.y_param)) {
      s += "<figure>" + svg_heatmap(*map) +
           fmt::format("<figcaption>Median time over {} × {}, best over the other parameters{}.</figcaption></figure>\n",
                       esc(map->x_param), esc(map->y_param), map->axes_note.empty() ? "" : " (" + esc(map->axes_note) + ")");
    }
    s += "<figure>" + svg_spread(spread_of(g)) +
         "<figcaption>Spread: each ranked configuration's median over the best, with its quartiles; "
         "<span style=\"color:var(--ok)\">●</span> best, <span style=\"color:var(--warn)\">●</span> "
         "baseline.</figcaption></figure>\n";
    s += "</div>\n";
  }
  s += html_ranked_table(lb, g, opt);
  s += html_failures_table(g);
  return s + "</section>\n";
}

}  // namespace

std::string html_report(const std::vector<Leaderboard>& lbs, const ReportOptions& opt) {
  std::vector<std::string> devices;
  for (const auto& lb : lbs) devices.push_back(lb.spec_name + " on " + lb.device.name);
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  s += fmt::format("<title>attn-tune report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                   esc(fmt::format("{}", fmt::join(devices, "; "))), report_css());
  s += fmt::format(
      "<header><h1>attn-tune report</h1><p class=\"meta\">{} leaderboard{} · written by attn-tune {} ({}) · "
      "<code>{}</code></p></header>\n",
      lbs.size(), lbs.size() == 1 ? "" : "s", kVersion, kGitCommit, esc(opt.command));

  s += "<nav>\n";
  for (std::size_t i = 0; i < lbs.size(); ++i) {
    s += fmt::format("<div><a href=\"#lb{}\"><b>{}</b></a>\n", i, esc(devices[i]));
    for (std::size_t gi = 0; gi < lbs[i].groups.size(); ++gi) {
      const auto& g = lbs[i].groups[gi];
      const ConfigResult* b = g.best();
      s += fmt::format("<div>&nbsp; <a href=\"#{}\">{} / {}</a> <span class=\"dim\">{}</span></div>\n", group_id(i, gi),
                       esc(g.kernel), esc(g.shape), b ? format_ms(b->timing->median_ms) + " ms" : "nothing ranked");
    }
    s += "</div>\n";
  }
  if (!cross_comparisons(lbs).empty()) s += "<div><a href=\"#compare\"><b>Across leaderboards</b></a></div>\n";
  s += "</nav>\n";

  for (std::size_t i = 0; i < lbs.size(); ++i) {
    const auto& lb = lbs[i];
    s += fmt::format("<section class=\"leaderboard\" id=\"lb{}\">\n<h2>#{} {} on {}</h2>\n", i, i + 1, esc(lb.spec_name),
                     esc(lb.device.name));
    s += leaderboard_facts(lb);
    s += roofline_block(lb, opt);
    for (std::size_t gi = 0; gi < lb.groups.size(); ++gi) s += group_section(lb, lb.groups[gi], opt, group_id(i, gi));
    s += "</section>\n";
  }
  s += html_comparison_section(lbs);
  s += "<footer>Times are medians of cold-cache device-event samples; noise is the samples' standard deviation over their "
       "mean "
       "(* where the noise target was not met). Only configurations that matched the CPU reference rank.</footer>\n";
  return s + "</body>\n</html>\n";
}

}  // namespace attn

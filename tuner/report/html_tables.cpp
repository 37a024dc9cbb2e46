#include "tuner/report/html_tables.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/markup.hpp"
#include "tuner/record/check_results.hpp"
#include "tuner/report/svg_plots.hpp"

namespace attn {
namespace {

std::string esc(const std::string& s) { return xml_escape(s); }

std::string status_class(Status s) {
  if (s == Status::ok) return "ok";
  return s == Status::skipped ? "skipped" : "failed";
}

std::string truncated(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + " …"; }

}  // namespace

std::string html_ranked_table(const Leaderboard& lb, const LeaderboardGroup& g, const ReportOptions& opt) {
  const auto ranked = g.ranked();
  if (ranked.empty()) return "";
  const auto params = g.param_names();
  const double best = ranked.front()->timing->median_ms;
  const double worst = ranked.back()->timing->median_ms / best;
  const Ceilings c = ceilings_of(lb, g, opt.ceilings);
  bool regs = false, spills = false, verified = false;
  std::vector<std::string> checks;  // the determinism checks some entry ran
  for (const auto* r : ranked) {
    regs = regs || max_resource(*r, &KernelResources::registers).has_value();
    spills = spills || max_resource(*r, &KernelResources::spill_store_bytes).has_value();
    verified = verified || r->verify.has_value();
    for (const char* name : kDeterminismChecks)
      if (check_passed(r->checks, name) && std::find(checks.begin(), checks.end(), name) == checks.end())
        checks.push_back(name);
  }

  std::string s = "<table class=\"lb\"><thead><tr><th>rank</th>";
  for (const auto& p : params) s += fmt::format("<th>{}</th>", esc(p));
  s += "<th class=\"l\">preset</th><th>median ms</th><th>q1–q3 ms</th><th>noise</th><th class=\"l\">× "
       "best</th><th>GFLOP/s</th><th>GB/s</th>";
  if (attainable_gflops(c, ranked.front()->flops, ranked.front()->bytes) > 0) s += "<th>% roof</th>";
  if (regs) s += "<th>regs</th>";
  s += "<th>private B</th><th>local B</th>";
  if (spills) s += "<th>spill B</th>";
  if (verified) s += "<th title=\"relative L2 error against the CPU reference\">rel L2</th>";
  for (const auto& c : checks) s += fmt::format("<th>{}</th>", esc(c));
  s += "<th>samples</th></tr></thead><tbody>\n";

  const std::size_t shown = opt.top > 0 ? std::min<std::size_t>(ranked.size(), opt.top) : ranked.size();
  for (std::size_t i = 0; i < shown; ++i) {
    const ConfigResult& r = *ranked[i];
    const auto& t = *r.timing;
    const double rel = t.median_ms / best;
    const bool is_baseline = !g.baseline_preset.empty() && r.job.preset == g.baseline_preset;
    s += fmt::format("<tr class=\"{}{}\"><td>{}</td>", i == 0 ? "best" : "", is_baseline ? " baseline" : "", i + 1);
    for (const auto& [_, v] : r.job.config) s += fmt::format("<td>{}</td>", v);
    s += fmt::format("<td class=\"l\">{}</td><td>{}</td><td>{}–{}</td><td>{:.2f}%{}</td>", esc(r.job.preset),
                     format_ms(t.median_ms), format_ms(t.q1_ms), format_ms(t.q3_ms), 100 * t.rel_noise,
                     t.converged ? "" : " <span title=\"noise target not met\">*</span>");
    const double width = 10 + 80 * std::log(rel) / std::log(color_scale_end(worst));
    s += fmt::format("<td class=\"rel l\"><span class=\"bar\" style=\"width:{:.0f}px;background:{}\"></span>{:.3f}</td>",
                     width, relative_color(rel, worst), rel);
    s += fmt::format("<td>{:.1f}</td><td>{:.1f}</td>", r.gflops, r.gbps);
    if (const double roof = attainable_gflops(c, r.flops, r.bytes); roof > 0)
      s += fmt::format("<td>{:.1f}</td>", 100 * r.gflops / roof);
    auto resource = [&](std::optional<long long> KernelResources::*field) {
      const auto v = max_resource(r, field);
      return v ? std::to_string(*v) : std::string("–");
    };
    if (regs) s += fmt::format("<td>{}</td>", resource(&KernelResources::registers));
    s += fmt::format("<td>{}</td><td>{}</td>", resource(&KernelResources::private_mem_bytes),
                     resource(&KernelResources::static_local_bytes));
    if (spills) s += fmt::format("<td>{}</td>", resource(&KernelResources::spill_store_bytes));
    if (verified) s += r.verify ? fmt::format("<td>{:.1e}</td>", r.verify->rel_l2) : "<td>–</td>";
    for (const auto& c : checks) {
      const auto passed = check_passed(r.checks, c);
      s += !passed ? "<td>–</td>" : *passed ? "<td class=\"status ok\">yes</td>" : "<td class=\"status failed\">no</td>";
    }
    s += fmt::format("<td>{}</td></tr>\n", t.samples);
  }
  s += "</tbody></table>\n";
  if (shown < ranked.size())
    s += fmt::format("<p class=\"note\">{} more ranked configurations not shown (--top {}).</p>\n", ranked.size() - shown,
                     opt.top);
  return s;
}

std::string html_failures_table(const LeaderboardGroup& g) {
  std::vector<const ConfigResult*> failed;
  for (const auto& e : g.entries)
    if (e.status != Status::ok) failed.push_back(&e);
  if (failed.empty()) return "";
  std::map<std::string, int> counts;
  for (const auto* f : failed) ++counts[status_name(f->status)];
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) parts.push_back(fmt::format("{} {}", n, status));
  const bool any_real_failure =
      std::any_of(failed.begin(), failed.end(), [](auto* f) { return f->status != Status::skipped; });
  std::string s = fmt::format("<details class=\"failures\"{}><summary>not ranked: {}</summary>\n",
                              any_real_failure ? " open" : "", fmt::join(parts, ", "));
  s += "<table><thead><tr><th class=\"l\">status</th><th class=\"l\">configuration</th><th "
       "class=\"l\">reason</th></tr></thead><tbody>\n";
  for (const auto* f : failed) {
    s += fmt::format("<tr><td class=\"l status {}\">{}</td><td class=\"l key\">{}</td><td class=\"reason\">{}",
                     status_class(f->status), status_name(f->status), esc(config_key(f->job.config)),
                     esc(truncated(f->reason, 400)));
    if (!f->log.empty())
      s += fmt::format("<details><summary>compiler log</summary><pre class=\"log\">{}</pre></details>",
                       esc(truncated(f->log, 4000)));
    s += "</td></tr>\n";
  }
  return s + "</tbody></table></details>\n";
}

std::string html_comparison_section(const std::vector<Leaderboard>& lbs) {
  const auto comparisons = cross_comparisons(lbs);
  if (comparisons.empty()) return "";
  std::string s =
      "<h2 id=\"compare\">Across leaderboards</h2>\n<p class=\"note\">For each kernel and shape run in more than one "
      "leaderboard: the best configuration of each, and how each one's best does in the others "
      "(its time there over the best there; – where it did not rank).</p>\n";
  for (const auto& c : comparisons) {
    s += fmt::format(
        "<h3>{} / {} / {}</h3>\n<table><thead><tr><th class=\"l\">leaderboard</th><th class=\"l\">best configuration</th>"
        "<th>median ms</th><th>GFLOP/s</th><th>× fastest</th>",
        esc(c.spec), esc(c.kernel), esc(c.shape));
    for (std::size_t j = 0; j < lbs.size(); ++j)
      if (c.best[j]) s += fmt::format("<th>on #{}</th>", j + 1);
    s += "</tr></thead><tbody>\n";
    double fastest = 1e300;
    for (const auto* b : c.best)
      if (b) fastest = std::min(fastest, b->timing->median_ms);
    for (std::size_t i = 0; i < lbs.size(); ++i) {
      if (!c.best[i]) continue;
      const auto& b = *c.best[i];
      s += fmt::format("<tr><td class=\"l\">#{} {}</td><td class=\"l key\">{}</td><td>{}</td><td>{:.1f}</td><td>{:.2f}</td>",
                       i + 1, esc(lbs[i].device.name), esc(config_key(b.job.config)), format_ms(b.timing->median_ms),
                       b.gflops, b.timing->median_ms / fastest);
      for (std::size_t j = 0; j < lbs.size(); ++j) {
        if (!c.best[j]) continue;
        const auto& p = c.portability[i][j];
        s += p ? fmt::format("<td style=\"background:{}\">{:.3f}</td>", relative_color(*p, 2.0), *p) : "<td>–</td>";
      }
      s += "</tr>\n";
    }
    s += "</tbody></table>\n";
  }
  s += "<p class=\"note\">";
  for (std::size_t i = 0; i < lbs.size(); ++i)
    s += fmt::format("#{} <code>{}</code> &nbsp; ", i + 1, esc(lbs[i].file.string()));
  return s + "</p>\n";
}

}  // namespace attn

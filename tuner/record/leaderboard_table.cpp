#include "tuner/record/leaderboard_table.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/record/determinism_summary.hpp"
#include "tuner/record/noise.hpp"
#include "tuner/record/ties.hpp"

namespace attn {
namespace {

std::string label_of(const LeaderboardEntry& e) {
  std::string label = config_key(e.job.config);
  if (!e.job.preset.empty()) label += fmt::format(" ({})", e.job.preset);
  return label;
}

// The first reason recorded for each status that did not rank, in the entries' order.
std::string not_ranked_lines(const LeaderboardGroup& g) {
  std::string summary, reasons;
  const auto excluded = std::count_if(g.entries.begin(), g.entries.end(), [](const auto& e) { return !e.excluded.empty(); });
  if (excluded > 0) summary = fmt::format("{} excluded by --require", excluded);
  for (const auto& [status, n] : g.counts())
    if (status != "ok") summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, status);
  if (summary.empty()) return "";
  std::vector<std::string> seen;
  for (const auto& e : g.entries) {
    const bool unranked = !e.excluded.empty() || e.status != Status::ok;
    const std::string what = e.excluded.empty() ? status_name(e.status) : "excluded";
    if (!unranked || std::find(seen.begin(), seen.end(), what) != seen.end()) continue;
    seen.push_back(what);
    const std::string& why = e.excluded.empty() ? e.reason : e.excluded;
    reasons += fmt::format("  {}: {}: {}\n", what, label_of(e), why.empty() ? "no reason recorded" : why);
  }
  return fmt::format("not ranked: {}\n{}", summary, reasons);
}

std::string baseline_line(const LeaderboardGroup& g) {
  const LeaderboardEntry* base = g.baseline();
  const LeaderboardEntry* best = g.best();
  if (!base) return fmt::format("baseline {}: not in this sweep\n", g.baseline_preset);
  if (base->status == Status::ok && base->timing && best) {
    const double speedup = base->timing->median_ms / best->timing->median_ms;
    // No speed-up is claimed where the two medians lie within their noise.
    if (base != best && within_noise(*base->timing, *best->timing))
      return fmt::format("best vs baseline {} ({}): the same within the noise (medians {:.2f}x apart)\n", g.baseline_preset,
                         config_key(base->job.config), speedup);
    return fmt::format("best vs baseline {} ({}): {:.2f}x faster\n", g.baseline_preset, config_key(base->job.config),
                       speedup);
  }
  const std::string why = base->status == Status::ok ? base->excluded : base->reason;
  return fmt::format("baseline {} ({}): {}{}\n", g.baseline_preset, config_key(base->job.config),
                     base->status == Status::ok ? "excluded" : status_name(base->status), why.empty() ? "" : ": " + why);
}

// One line for the whole leaderboard when most timed configurations never reached the noise target: on such a
// device the order within the noise is no ranking, and the table should not be read as one.
std::string too_noisy_line(const Leaderboard& lb) {
  int timed = 0, noisy = 0;
  for (const auto& g : lb.groups)
    for (const auto& e : g.entries)
      if (e.status == Status::ok && e.timing && fully_measured(e.stage)) {  // screens stop short by design
        ++timed;
        noisy += e.timing->converged ? 0 : 1;
      }
  if (timed == 0 || 2 * noisy <= timed) return {};
  return fmt::format(
      "\ntoo noisy to rank: {} of {} timed configurations never reached the {:.2f}% noise target; "
      "only gaps beyond the noise (no ~#k, no tie) are real\n",
      noisy, timed, 100 * lb.settings.timing.max_noise);
}

}  // namespace

std::string ranking_mark(const std::vector<const LeaderboardEntry*>& ranked, std::size_t i) {
  const SampleStats& t = *ranked.at(i)->timing;
  std::vector<std::string> marks;
  const Stage stage = ranked.at(i)->stage;
  if (!fully_measured(stage)) marks.push_back(stage == Stage::screen ? "screened" : "raced");
  else if (!t.converged) marks.push_back("noisy");
  if (const auto& tie = ranked.at(i)->tie) {
    marks.push_back(fmt::format("tie {}/{}", tie->order, tie->of));
  } else if (i > 0) {
    if (within_noise(t, *ranked.front()->timing)) marks.push_back("~#1");
    else if (within_noise(t, *ranked.at(i - 1)->timing)) marks.push_back(fmt::format("~#{}", i));
  }
  return fmt::format("{}", fmt::join(marks, " "));
}

std::string leaderboard_table(const Leaderboard& lb, int top) {
  std::string out;
  const auto& dev = lb.device;
  out += fmt::format("device {} ({}, {}){}\n", dev.name, dev.id, dev.platform,
                     lb.complete ? "" : "  [INCOMPLETE: interrupted, resume with --resume]");
  for (const auto& g : lb.groups) {
    out += fmt::format("\n{} / {}  ({})\n", g.kernel, g.shape, shape_summary(g.shape_fields));
    const bool checked = !g.determinism.is_null();
    const auto ranked = g.ranked();
    const std::size_t shown = std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(top, 0)));
    std::size_t width = std::string("configuration").size();  // the longest label shown sets the column
    for (std::size_t i = 0; i < shown; ++i) width = std::max(width, label_of(*ranked[i]).size());
    out += fmt::format("{:>4}  {:<{}} {:>10} {:>10} {:>7} {:>10} {:>9} {:>9} {:>8}{}  {}\n", "rank", "configuration", width,
                       "median ms", "min ms", "noise", "GFLOP/s", "GB/s", "priv B", "local B", checked ? "  det/bi/cg" : "",
                       "note");
    bool noisy = false, tie = false, tied_set = false, staged = false;
    for (std::size_t i = 0; i < shown; ++i) {
      const LeaderboardEntry& e = *ranked[i];
      const SampleStats& t = *e.timing;
      long long priv = 0, local = 0;
      for (const auto& [_, r] : e.resources) {
        priv = std::max(priv, r.private_mem_bytes.value_or(0));
        local = std::max(local, r.static_local_bytes.value_or(0));
      }
      const std::string mark = ranking_mark(ranked, i);
      noisy = noisy || mark.find("noisy") != std::string::npos;
      staged = staged || !fully_measured(e.stage);
      tie = tie || mark.find('~') != std::string::npos;
      tied_set = tied_set || e.tie.has_value();
      const std::string row =
          fmt::format("{:>4}  {:<{}} {:>10.4f} {:>10.4f} {:>6.2f}% {:>10.1f} {:>9.2f} {:>9} {:>8}{}  {}", e.rank,
                      label_of(e), width, t.median_ms, t.min_ms, 100 * measurement_noise(t), e.gflops, e.gbps, priv, local,
                      checked ? "  " + checks_cell(nlohmann::json{{"checks", e.checks}}) : "", mark);
      out += row.substr(0, row.find_last_not_of(' ') + 1) + "\n";
    }
    if (noisy)
      out += fmt::format("noisy: sampling stopped before the noise reached the target ({:.2f}%)\n",
                         100 * lb.settings.timing.max_noise);
    if (staged)
      out +=
          "screened/raced: retired by the race after a screen or a race round, not measured in full; the confirmed "
          "rank first\n";
    if (tie) out += "~#k: the same as rank k's time within the two measurements' noise\n";
    if (tied_set)
      out +=
          fmt::format("tie k/n: within noise of the fastest after being measured again in turns; ranked by {}\n", kTieRule);
    if (!ranked.empty() && ranked.front()->clocks)
      out += fmt::format("#1 timed at {}\n", ranked.front()->clocks->state_text());
    if (!g.baseline_preset.empty()) out += baseline_line(g);
    if (checked) out += determinism_summary_line(g.determinism);
    out += not_ranked_lines(g);
  }
  out += too_noisy_line(lb);
  return out;
}

}  // namespace attn

#include "tuner/gate/gate_summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/export/c_source.hpp"

namespace attn {
namespace {

constexpr Verdict kVerdicts[] = {Verdict::slower,  Verdict::broken,    Verdict::nondeterministic,
                                 Verdict::missing, Verdict::uncertain, Verdict::faster,
                                 Verdict::same};

std::string counts(const GateReport& r) {
  std::vector<std::string> parts;
  for (Verdict v : kVerdicts)
    if (int n = r.count(v)) parts.push_back(fmt::format("{} {}", n, verdict_name(v)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string label(const GateComparison& c) { return c.preset.empty() ? c.key : fmt::format("{} ({})", c.key, c.preset); }

std::string ms(const std::optional<SampleStats>& t) { return t ? fmt::format("{:.4g}", t->median_ms) : "-"; }

std::string change(const GateComparison& c) {
  if (!c.candidate || !c.candidate->timing || c.judgement.verdict == Verdict::broken) return "-";
  return fmt::format("{:+.1f}%", 100 * c.judgement.change);
}

std::string noise(const GateComparison& c) {
  if (!c.candidate || !c.candidate->timing || c.judgement.verdict == Verdict::broken) return "-";
  return fmt::format("{:.1f}%", 100 * c.judgement.band);
}

// How often the gate measured the candidate (and the baseline) itself: "3x", "2x + baseline 2x".
std::string measured(const GateComparison& c) {
  if (!c.measured) return "-";
  return c.baseline_measured ? fmt::format("{}x + baseline {}x", c.measured, c.baseline_measured)
                             : fmt::format("{}x", c.measured);
}

std::string rule_line(const GateReport& r) {
  return fmt::format(
      "SLOWER when the candidate's median is slower by more than both {:.1f}% and the noise band; "
      "UNCERTAIN beyond {:.1f}% but within the noise{}; correctness and determinism regressions always fail.",
      100 * r.rules.threshold, 100 * r.rules.threshold,
      r.rules.uncertain_fails ? " (fails: --fail-on-uncertain)" : " (passes)");
}

}  // namespace

std::string gate_verdict_line(const GateReport& r) {
  const int n = static_cast<int>(r.comparisons.size());
  if (r.passed()) return fmt::format("PASS: {} comparisons: {}", n, n ? counts(r) : "none");
  return fmt::format("FAIL: {} of {} comparisons failed ({})", r.failures(), n, counts(r));
}

std::string gate_table(const GateReport& r) {
  std::string s =
      fmt::format("baseline:  {}\ncandidate: {}\nrule: {}\n\n", r.baseline_label, r.candidate_label, rule_line(r));
  std::vector<std::vector<std::string>> rows = {
      {"verdict", "kernel / shape", "rank", "configuration", "baseline ms", "candidate ms", "change", "noise", "measured"}};
  for (const auto& c : r.comparisons)
    rows.push_back({verdict_name(c.judgement.verdict), c.kernel + " / " + c.shape, std::to_string(c.baseline_rank), label(c),
                    ms(c.baseline.timing), c.candidate ? ms(c.candidate->timing) : "-", change(c), noise(c), measured(c)});
  for (const auto& line : aligned_columns(rows, "  ")) s += line + "\n";
  for (const auto& c : r.comparisons)
    if (fails(c.judgement.verdict, r.rules) || c.judgement.verdict == Verdict::uncertain)
      s +=
          fmt::format("{} {} / {} / {}: {}\n", verdict_name(c.judgement.verdict), c.kernel, c.shape, c.key, c.judgement.why);
  for (const auto& note : r.notes) s += "note: " + note + "\n";
  return s + gate_verdict_line(r) + "\n";
}

std::string gate_markdown(const GateReport& r) {
  std::string s = fmt::format("## attn-tune gate: {}\n\n", gate_verdict_line(r));
  s += fmt::format("- baseline: `{}`\n- candidate: `{}`\n- {}\n\n", r.baseline_label, r.candidate_label, rule_line(r));
  s += "| verdict | kernel / shape | rank | configuration | baseline ms | candidate ms | change | noise | why |\n";
  s += "|---|---|--:|---|--:|--:|--:|--:|---|\n";
  // Failures first: they are what the reader came for.
  for (bool failing : {true, false}) {
    for (const auto& c : r.comparisons) {
      if (fails(c.judgement.verdict, r.rules) != failing) continue;
      std::string why = c.judgement.why;
      for (char& ch : why)
        if (ch == '|' || ch == '\n') ch = ' ';
      s += fmt::format("| {}{}{} | {} / {} | {} | `{}` | {} | {} | {} | {} | {} |\n", failing ? "**" : "",
                       verdict_name(c.judgement.verdict), failing ? "**" : "", c.kernel, c.shape, c.baseline_rank, label(c),
                       ms(c.baseline.timing), c.candidate ? ms(c.candidate->timing) : "-", change(c), noise(c), why);
    }
  }
  if (!r.notes.empty()) {
    s += "\n";
    for (const auto& note : r.notes) s += "- " + note + "\n";
  }
  return s;
}

}  // namespace attn

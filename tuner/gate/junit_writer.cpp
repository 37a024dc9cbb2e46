#include "tuner/gate/junit_writer.hpp"

#include <map>

#include <fmt/format.h>

#include "tuner/core/markup.hpp"

namespace attn {
namespace {

// A testcase's time: the candidate's median, in seconds, so CI tools show the kernel's time.
double seconds(const GateComparison& c) {
  return c.candidate && c.candidate->timing ? c.candidate->timing->median_ms / 1000 : 0;
}

std::string testcase(const GateComparison& c, const GateRules& rules) {
  const std::string verdict = verdict_name(c.judgement.verdict);
  std::string s = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.9f}\">\n",
                              xml_escape(c.kernel + "." + c.shape), xml_escape(c.key), seconds(c));
  if (fails(c.judgement.verdict, rules))
    s += fmt::format("      <failure type=\"{}\" message=\"{}: {}\"/>\n", verdict, verdict, xml_escape(c.judgement.why));
  std::string measured;
  if (c.measured) measured += fmt::format(", candidate measured {} times", c.measured);
  if (c.baseline_measured) measured += fmt::format(", baseline {} times", c.baseline_measured);
  s += fmt::format("      <system-out>{}: {} (baseline rank {}{})</system-out>\n", verdict, xml_escape(c.judgement.why),
                   c.baseline_rank, measured);
  return s + "    </testcase>\n";
}

}  // namespace

std::string gate_junit(const GateReport& r) {
  // Suites in the baseline's order of (kernel, shape).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const GateComparison*>> suites;
  for (const auto& c : r.comparisons) {
    const std::string name = c.kernel + " / " + c.shape;
    if (!suites.contains(name)) order.push_back(name);
    suites[name].push_back(&c);
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"attn-tune gate\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", r.comparisons.size(),
                   r.failures());
  for (const auto& name : order) {
    const auto& cases = suites.at(name);
    int failures = 0;
    for (const auto* c : cases) failures += fails(c->judgement.verdict, r.rules) ? 1 : 0;
    s += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n", xml_escape(name),
                     cases.size(), failures);
    for (const auto* c : cases) s += testcase(*c, r.rules);
    s += "  </testsuite>\n";
  }
  return s + "</testsuites>\n";
}

}  // namespace attn

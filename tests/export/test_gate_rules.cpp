// The gate's decision rule (gate_rules.hpp) on made-up measurements, and the
// re-measurement loop with a fake device.
#include <gtest/gtest.h>

#include <regex>

#include "tuner/core/error.hpp"
#include "tuner/gate/gate.hpp"
#include "tuner/gate/gate_rules.hpp"
#include "tuner/gate/gate_summary.hpp"
#include "tuner/gate/junit_writer.hpp"

namespace attn {
namespace {

// An ok result with median MS and a sample spread of NOISE (relative), quartiles as for normal samples.
ConfigResult timed(double ms, double noise = 0.005) {
  ConfigResult r;
  r.job = {"prefill", "tiny", {{"BLOCK_M", 32}}, ""};
  r.status = Status::ok;
  SampleStats t;
  t.samples = 30;
  t.median_ms = t.mean_ms = ms;
  t.rel_noise = noise;
  t.stddev_ms = noise * ms;
  t.q1_ms = ms - 0.6745 * noise * ms;
  t.q3_ms = ms + 0.6745 * noise * ms;
  r.timing = t;
  return r;
}

Verdict verdict(const ConfigResult& base, const ConfigResult& cand, GateRules rules = {}) {
  return judge(base, &cand, rules).verdict;
}

TEST(GateRules, NoiseIsTheInterquartileRangeInSigmas) {
  EXPECT_NEAR(measurement_noise(*timed(1.0, 0.02).timing), 0.02, 1e-3);
  SampleStats few = *timed(1.0, 0.02).timing;
  few.samples = 3;  // too few for quartiles: the recorded rel_noise
  few.rel_noise = 0.07;
  EXPECT_DOUBLE_EQ(measurement_noise(few), 0.07);
}

TEST(GateRules, WithinTheThresholdIsSame) {
  EXPECT_EQ(verdict(timed(1.0), timed(1.04)), Verdict::same);
  EXPECT_EQ(verdict(timed(1.0), timed(0.96)), Verdict::same);
}

TEST(GateRules, SlowerNeedsBothTheThresholdAndTheNoise) {
  EXPECT_EQ(verdict(timed(1.0), timed(1.10)), Verdict::slower);
  EXPECT_EQ(verdict(timed(1.0, 0.10), timed(1.10, 0.10)), Verdict::uncertain) << "10% inside a 14% noise band";
  EXPECT_EQ(verdict(timed(1.0, 0.10), timed(1.20, 0.10)), Verdict::slower) << "20% outside it";
  EXPECT_EQ(verdict(timed(1.0), timed(1.10), GateRules{0.15}), Verdict::same) << "--threshold 15";
}

// A median taken at SM_MHZ (NVML's record), THROTTLED or not.
ConfigResult clocked(double ms, double sm_mhz, bool throttled = false) {
  ConfigResult r = timed(ms);
  ClockRecord c;
  c.sm_mhz_min = c.sm_mhz_median = sm_mhz;
  c.expected_sm_mhz = 1980;
  c.throttled = throttled;
  r.clocks = c;
  return r;
}

TEST(GateRules, ASlowdownAtALowerClockSaysSoWithoutChangingTheVerdict) {
  const ConfigResult slower_clock = clocked(1.08, 1830);
  const Judgement j = judge(clocked(1.0, 1980), &slower_clock, GateRules{});
  EXPECT_EQ(j.verdict, Verdict::slower);
  EXPECT_NE(j.why.find("SM clock 1980 -> 1830 MHz (-7.6%)"), std::string::npos) << j.why;

  const ConfigResult same_clock = clocked(1.08, 1975);
  EXPECT_EQ(judge(clocked(1.0, 1980), &same_clock, GateRules{}).why.find("SM clock"), std::string::npos)
      << "clocks within 1% are not worth a word";
  const ConfigResult no_clock = timed(1.08);
  EXPECT_EQ(judge(clocked(1.0, 1980), &no_clock, GateRules{}).why.find("SM clock"), std::string::npos)
      << "a run without NVML (PoCL) has no clocks to compare";
  const ConfigResult throttled = clocked(1.08, 1500, true);
  EXPECT_NE(judge(clocked(1.0, 1980), &throttled, GateRules{}).why.find("timed throttled"), std::string::npos);
  // pairs judged together keep the note: the clocks of the pair measured last
  const Judgement pooled = judge_pairs({{clocked(1.0, 1980), clocked(1.08, 1975)}, {clocked(1.0, 1980), slower_clock}}, {});
  EXPECT_EQ(pooled.verdict, Verdict::slower);
  EXPECT_NE(pooled.why.find("SM clock 1980 -> 1830 MHz"), std::string::npos) << pooled.why;
}

TEST(GateRules, FasterIsTheMirror) {
  EXPECT_EQ(verdict(timed(1.0), timed(0.80)), Verdict::faster);
  EXPECT_EQ(verdict(timed(1.0, 0.2), timed(0.90, 0.2)), Verdict::uncertain);
}

TEST(GateRules, CorrectnessAndDeterminismRegressionsAlwaysFail) {
  ConfigResult broken = timed(0.5);
  broken.status = Status::incorrect;
  broken.reason = "rel_l2 0.3 > 1e-4";
  const Judgement j = judge(timed(1.0), &broken, {});
  EXPECT_EQ(j.verdict, Verdict::broken);
  EXPECT_EQ(j.why, "ok -> incorrect: rel_l2 0.3 > 1e-4");

  ConfigResult base = timed(1.0), cand = timed(0.5);
  base.checks = {{"deterministic", true}, {"batch_invariant", {{"passed", true}}}};
  cand.checks = {{"deterministic", true}, {"batch_invariant", {{"passed", false}}}};
  EXPECT_EQ(verdict(base, cand), Verdict::nondeterministic) << "even though twice as fast";
  cand.checks = nlohmann::json::object();
  EXPECT_EQ(verdict(base, cand), Verdict::faster) << "a check not run is not a regression";

  EXPECT_EQ(judge(timed(1.0), nullptr, {}).verdict, Verdict::missing);
  for (Verdict v : {Verdict::slower, Verdict::broken, Verdict::nondeterministic, Verdict::missing})
    EXPECT_TRUE(fails(v, {}));
  for (Verdict v : {Verdict::faster, Verdict::same, Verdict::uncertain}) EXPECT_FALSE(fails(v, {}));
  EXPECT_TRUE(fails(Verdict::uncertain, GateRules{0.05, 3, true})) << "--fail-on-uncertain";
}

// A leaderboard of one group whose configurations have the given medians.
Leaderboard board(const std::vector<double>& medians) {
  Leaderboard lb;
  lb.file = "lb.json";
  LeaderboardGroup g;
  g.kernel = "prefill";
  g.shape = "tiny";
  for (std::size_t i = 0; i < medians.size(); ++i) {
    ConfigResult r = timed(medians[i]);
    r.job.config = {{"BLOCK_M", static_cast<long long>(16 << i)}};
    LeaderboardEntry e{r};
    e.rank = static_cast<int>(i) + 1;  // in the order given, as the file's order ranks them
    g.entries.push_back(e);
  }
  lb.groups.push_back(g);
  return lb;
}

TEST(Gate, ComparesTheTopConfigurationsOfEachGroup) {
  const Leaderboard base = board({1.0, 1.1, 1.2, 1.3});
  const Leaderboard cand = board({1.0, 1.3, 1.2, 1.3});
  GateInput in;
  in.baseline = &base;
  in.candidate = &cand;
  const GateReport r = run_gate(in);
  ASSERT_EQ(r.comparisons.size(), 3u) << "--top 3 by default";
  EXPECT_EQ(r.comparisons[1].judgement.verdict, Verdict::slower);
  EXPECT_EQ(r.failures(), 1);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(gate_verdict_line(r), "FAIL: 1 of 3 comparisons failed (1 SLOWER, 2 SAME)");
  in.top = 0;
  EXPECT_EQ(run_gate(in).comparisons.size(), 4u);
}

TEST(Gate, UncertainOrSlowerIsMeasuredAgainUntilItIsNot) {
  const Leaderboard base = board({1.0});
  std::vector<ConfigResult> measurements = {timed(1.25, 0.3), timed(1.2), timed(1.01)};  // UNCERTAIN, SLOWER, SAME
  std::size_t next = 0;
  GateInput in;
  in.baseline = &base;
  in.measure = [&](const Job&) { return measurements.at(next++); };
  const GateReport r = run_gate(in);
  ASSERT_EQ(r.comparisons.size(), 1u);
  EXPECT_EQ(r.comparisons[0].judgement.verdict, Verdict::same);
  EXPECT_EQ(r.comparisons[0].measured, 3);
  EXPECT_TRUE(r.passed());

  next = 0;
  measurements = {timed(1.3), timed(1.3), timed(1.3), timed(1.3), timed(1.0)};
  in.rules.remeasure_limit = 3;
  const GateReport slow = run_gate(in);
  EXPECT_EQ(slow.comparisons[0].judgement.verdict, Verdict::slower) << "a real slowdown stays";
  EXPECT_EQ(slow.comparisons[0].measured, 4) << "the first measurement and 3 more";
}

TEST(Gate, PairsWithTheBaselinesCodeCancelADriftingMachine) {
  // Recorded in a quiet moment at 1.0; now the machine is twice as slow for both codes.
  const Leaderboard base = board({1.0});
  GateInput in;
  in.baseline = &base;
  in.measure = [](const Job&) { return timed(2.02); };
  const GateReport alone = run_gate(in);
  EXPECT_EQ(alone.comparisons[0].judgement.verdict, Verdict::slower) << "against the recorded baseline";
  in.measure_baseline = [](const Job&) { return timed(2.0); };
  const GateReport paired = run_gate(in);
  EXPECT_EQ(paired.comparisons[0].judgement.verdict, Verdict::same);
  EXPECT_EQ(paired.comparisons[0].measured, 2);
  EXPECT_EQ(paired.comparisons[0].baseline_measured, 1);
  EXPECT_DOUBLE_EQ(paired.comparisons[0].baseline.timing->median_ms, 2.0) << "judged against the fresh baseline";
}

TEST(Gate, PairsAlternateWhichCodeGoesFirst) {
  const Leaderboard base = board({1.0});
  std::string order;
  GateInput in;
  in.baseline = &base;
  in.measure = [&](const Job&) {
    order += 'C';
    return timed(1.3);
  };
  in.measure_baseline = [&](const Job&) {
    order += 'B';
    return timed(1.0);
  };
  const GateReport r = run_gate(in);
  EXPECT_EQ(order,
            "C"
            "BC"
            "CB"
            "BC")
      << "the first measurement, then pairs in turns";
  EXPECT_EQ(r.comparisons[0].judgement.verdict, Verdict::slower) << "a real slowdown shows in every pair";
  EXPECT_NE(r.comparisons[0].judgement.why.find("median of 3 pairs: +30.0%, +30.0%, +30.0%"), std::string::npos)
      << r.comparisons[0].judgement.why;
}

TEST(Gate, PairsAreJudgedTogetherAndOneThatDisagreesLeavesItUncertain) {
  // A machine whose speed moves between measurements: one pair at +30% is a coin toss.
  const Leaderboard base = board({1.0});
  std::vector<double> candidate_ms = {1.3, 1.3, 1.0, 1.3};  // measured alone, then in 3 pairs
  std::size_t next = 0;
  GateInput in;
  in.baseline = &base;
  in.measure = [&](const Job&) { return timed(candidate_ms.at(next++)); };
  in.measure_baseline = [](const Job&) { return timed(1.0); };
  const GateReport r = run_gate(in);
  const Judgement& j = r.comparisons[0].judgement;
  EXPECT_EQ(j.verdict, Verdict::uncertain) << j.why;
  EXPECT_EQ(r.comparisons[0].measured, 4);
  EXPECT_NEAR(j.change, 0.3, 1e-9) << "the median of the three pairs";
  EXPECT_NE(j.why.find("but pair 2 of 3 alone is SAME (+0.0%, noise 0.7%): the pairs disagree"), std::string::npos) << j.why;
  EXPECT_TRUE(r.passed());

  // Judged on its last pair alone (as before pairs were pooled), the same run would be SAME;
  // on its first, SLOWER: neither pair alone decides.
  MeasuredPair first{timed(1.0), timed(1.3)}, second{timed(1.0), timed(1.0)};
  EXPECT_EQ(judge_pairs({first}, {}).verdict, Verdict::slower);
  EXPECT_EQ(judge_pairs({first, second}, {}).verdict, Verdict::uncertain);
  EXPECT_EQ(judge_pairs({second, second, first}, {}).verdict, Verdict::same) << "median +0%";
  // every pair +30%, but one of them within its own noise band (40%): that pair alone cannot tell
  MeasuredPair noisy{timed(1.0, 0.28), timed(1.3, 0.28)};
  EXPECT_EQ(judge_pairs({first, noisy, first}, {}).verdict, Verdict::uncertain);
  EXPECT_EQ(judge_pairs({first, first, first}, {}).verdict, Verdict::slower);
  MeasuredPair broken = first;
  broken.candidate.status = Status::incorrect;
  EXPECT_EQ(judge_pairs({first, broken}, {}).verdict, Verdict::broken) << "a wrong answer in any pair decides";
}

TEST(Gate, JunitHasATestcasePerComparisonAndAFailurePerFailure) {
  const Leaderboard base = board({1.0, 1.1, 1.2});
  Leaderboard cand = board({1.0, 1.5, 1.2});
  cand.groups[0].entries[2].status = Status::crashed;
  cand.groups[0].entries[2].reason = "SIGSEGV <in the kernel> & more";
  GateInput in;
  in.baseline = &base;
  in.candidate = &cand;
  const std::string xml = gate_junit(run_gate(in));
  const auto count = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(xml.begin(), xml.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(count("<testcase "), 3);
  EXPECT_EQ(count("<failure "), 2);
  EXPECT_EQ(count("type=\"SLOWER\""), 1);
  EXPECT_EQ(count("type=\"BROKEN\""), 1);
  EXPECT_NE(xml.find("<testsuites name=\"attn-tune gate\" tests=\"3\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("SIGSEGV &lt;in the kernel&gt; &amp; more"), std::string::npos) << "escaped: " << xml;
}

TEST(Gate, ABaselineWhereNothingRankedFailsSayingWhy) {
  Leaderboard base = board({1.0, 1.1});
  for (auto& e : base.groups[0].entries) {
    e.status = Status::incorrect;
    e.rank = 0;
    e.reason = "rel_l2 0.3 > 0.0001";
  }
  const Leaderboard cand = board({1.0, 1.1});
  GateInput in;
  in.baseline = &base;
  in.candidate = &cand;
  try {
    run_gate(in);
    FAIL() << "an all-broken baseline passed";
  } catch (const UsageError&) {
    FAIL() << "not a usage error: the files are fine, the baseline run is not";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("has no ranked result to compare with (2 incorrect)"), std::string::npos) << what;
    EXPECT_NE(what.find("first: prefill / tiny / BLOCK_M=16: rel_l2 0.3 > 0.0001"), std::string::npos) << what;
  }
}

TEST(Gate, LeaderboardsOfDifferentSpecsAreNotCompared) {
  Leaderboard base = board({1.0}), cand = board({1.0});
  base.spec_name = "prefill_spec";
  cand.spec_name = "decode_spec";
  cand.groups[0].kernel = "decode";
  GateInput in;
  in.baseline = &base;
  in.candidate = &cand;
  try {
    run_gate(in);
    FAIL() << "leaderboards of different specs were compared";
  } catch (const UsageError& e) {
    EXPECT_NE(
        std::string(e.what()).find("come from different specs (prefill_spec and decode_spec: no (kernel, shape) in common)"),
        std::string::npos)
        << e.what();
  }
  cand.groups[0].kernel = "prefill";  // another spec name, the same kernels and shapes: another version of the code
  EXPECT_EQ(run_gate(in).comparisons.size(), 1u);
}

}  // namespace
}  // namespace attn

// One noise rule (tuner/record/noise.hpp) for the stop rule, ties, the table and the gate: on one fixture's
// noise they agree where "within the noise" ends. And the sampling loop (tuner/measure/sampler.hpp) on a fake
// device whose times, clocks and wall clock the test writes.
#include <gtest/gtest.h>

#include <algorithm>

#include "tuner/gate/gate_rules.hpp"
#include "tuner/measure/sampler.hpp"
#include "tuner/measure/stopping_criterion.hpp"
#include "tuner/record/leaderboard_table.hpp"
#include "tuner/record/noise.hpp"
#include "tuner/record/ties.hpp"

namespace attn {
namespace {

// 40 samples around MS, spread so that their noise is a few percent.
std::vector<double> samples_around(double ms) {
  std::vector<double> s;
  for (int i = 0; i < 40; ++i) s.push_back(ms * (1.0 + 0.03 * ((i * 7) % 11 - 5) / 5.0));
  return s;
}

LeaderboardEntry entry(long long id, const std::vector<double>& samples) {
  LeaderboardEntry e;
  e.job.kernel = "k";
  e.job.shape = "s";
  e.job.config = {{"X", ParamValue(id)}};
  e.status = Status::ok;
  e.timing = SampleStats::of(samples);
  return e;
}

std::vector<double> scaled(const std::vector<double>& s, double f) {
  std::vector<double> out;
  for (double x : s) out.push_back(x * f);
  return out;
}

TEST(NoiseRule, TheStopRuleTiesTheTableAndTheGateAgreeOnOneFixturesNoise) {
  const std::vector<double> a_samples = samples_around(1.0);
  const SampleStats a = SampleStats::of(a_samples);
  const double noise = measurement_noise(a);
  ASSERT_GT(noise, 0.005);
  const double band = noise_band(noise, noise);  // B is A scaled: the same relative noise
  const SampleStats inside = SampleStats::of(scaled(a_samples, 1.0 + 0.9 * band));
  const SampleStats outside = SampleStats::of(scaled(a_samples, 1.0 + 1.1 * band));

  // The stop rule: A converges exactly when its noise is at the target.
  for (const auto& [target, converges] : {std::pair{noise * 1.01, true}, std::pair{noise * 0.99, false}}) {
    TimingSettings t;
    t.min_samples = 40;  // the whole fixture, so that the noise it converges on is the one the others see
    t.max_samples = 1000;
    t.max_noise = target;
    NoiseTarget stop(t);
    for (double ms : a_samples) stop.add(ms);
    EXPECT_EQ(stop.converged(), converges) << "target " << target << ", noise " << noise;
  }

  // The rule itself, both ways round.
  EXPECT_TRUE(within_noise(inside, a));
  EXPECT_TRUE(within_noise(a, inside));
  EXPECT_FALSE(within_noise(outside, a));

  // The gate: a change beyond a 0.1% threshold is UNCERTAIN inside the band, SLOWER outside it.
  GateRules rules;
  rules.threshold = 0.001;
  ConfigResult base, in_c, out_c;
  base.status = in_c.status = out_c.status = Status::ok;
  base.timing = a;
  in_c.timing = inside;
  out_c.timing = outside;
  EXPECT_EQ(judge(base, &in_c, rules).verdict, Verdict::uncertain);
  EXPECT_EQ(judge(base, &out_c, rules).verdict, Verdict::slower);

  // The table: ~#1 inside, no mark outside.
  const LeaderboardEntry ea = entry(1, a_samples), ein = entry(2, scaled(a_samples, 1.0 + 0.9 * band)),
                         eout = entry(3, scaled(a_samples, 1.0 + 1.1 * band));
  EXPECT_NE(ranking_mark({&ea, &ein}, 1).find("~#1"), std::string::npos) << ranking_mark({&ea, &ein}, 1);
  EXPECT_EQ(ranking_mark({&ea, &eout}, 1).find("~#"), std::string::npos) << ranking_mark({&ea, &eout}, 1);

  // Ties (one band, the default): the one inside is re-measured beside A and ties; the one outside is not.
  std::vector<ConfigResult> results = {ea, ein, eout};
  std::vector<std::string> remeasured;
  resolve_ties(
      results,
      [&](const std::vector<Job>& jobs) {
        std::vector<ConfigResult> again;
        for (const auto& j : jobs) {
          remeasured.push_back(config_key(j.config));
          for (const auto& r : results)
            if (r.job.key() == j.key()) again.push_back(r);
        }
        return again;
      },
      TieSettings{});
  EXPECT_EQ(remeasured.size() % 2, 0u);
  EXPECT_EQ(std::count(remeasured.begin(), remeasured.end(), config_key(eout.job.config)), 0);
  EXPECT_TRUE(results[0].tie.has_value());
  EXPECT_TRUE(results[1].tie.has_value());
  EXPECT_FALSE(results[2].tie.has_value());
}

// The table claims no speed-up inside the noise, and says once when most timings never reached the target.
TEST(NoiseRule, TheTableClaimsNoSpeedUpInsideTheNoiseAndSaysWhenTheDeviceWasTooNoisy) {
  const std::vector<double> a_samples = samples_around(1.0);
  const double band =
      noise_band(measurement_noise(SampleStats::of(a_samples)), measurement_noise(SampleStats::of(a_samples)));
  Leaderboard lb;
  lb.settings.timing.max_noise = 0.005;
  LeaderboardGroup g;
  g.kernel = "k";
  g.shape = "s";
  g.baseline_preset = "base";
  LeaderboardEntry best = entry(1, a_samples), base = entry(2, scaled(a_samples, 1.0 + 0.5 * band));
  best.rank = 1;
  base.rank = 2;
  base.job.preset = "base";
  g.entries = {best, base};
  lb.groups = {g};
  std::string table = leaderboard_table(lb, 5);
  EXPECT_NE(table.find("the same within the noise"), std::string::npos) << table;
  EXPECT_EQ(table.find("x faster"), std::string::npos) << table;
  EXPECT_NE(table.find("too noisy to rank: 2 of 2"), std::string::npos) << table;  // neither converged

  // Far apart and converged: a speed-up, and no noise line.
  lb.groups[0].entries[1] = entry(2, scaled(a_samples, 2.0));
  lb.groups[0].entries[1].rank = 2;
  lb.groups[0].entries[1].job.preset = "base";
  for (auto& e : lb.groups[0].entries) e.timing->converged = true;
  table = leaderboard_table(lb, 5);
  EXPECT_NE(table.find("2.00x faster"), std::string::npos) << table;
  EXPECT_EQ(table.find("too noisy"), std::string::npos) << table;
}

// A device whose sample times, clocks and wall clock the test scripts.
struct FakeDevice {
  std::vector<double> times;      // cycled
  std::vector<double> clock_mhz;  // per run, cycled; empty: no clocks
  double expected_mhz = 1980;
  double now = 0;
  int runs = 0;
  std::vector<double> pauses;

  SampleSource source(bool gpu = false) {
    SampleSource s;
    s.run = [this] {
      const double ms = times[static_cast<std::size_t>(runs) % times.size()];
      ++runs;
      now += ms / 1000;
      return ms;
    };
    s.clocks = [this]() -> std::optional<ClockReading> {
      if (clock_mhz.empty()) return std::nullopt;
      ClockReading r;
      r.sm_mhz = clock_mhz[static_cast<std::size_t>(runs - 1) % clock_mhz.size()];
      r.expected_sm_mhz = expected_mhz;
      return r;
    };
    s.pause = [this](double seconds) {
      pauses.push_back(seconds);
      now += seconds;
    };
    s.now_s = [this] { return now; };
    s.warm_by_time = gpu;
    return s;
  }
};

TimingSettings quick() {
  TimingSettings t;
  t.warmup_runs = 2;
  t.warmup_s = 0;
  t.min_samples = 5;
  t.max_samples = 50;
  t.max_noise = 0.01;
  t.max_time_s = 1.0;
  t.timeout_s = 10;
  return t;
}

TEST(Sampler, ASteadyDeviceConvergesAtMinSamplesAfterItsWarmUp) {
  FakeDevice d;
  d.times = {2.0};
  TimingSettings t = quick();
  NoiseTarget stop(t);
  const Samples s = take_samples(d.source(), t, stop);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.ms.size(), 5u);
  EXPECT_EQ(d.runs, 2 + 5);
  EXPECT_EQ(s.discarded, 0);
}

TEST(Sampler, ANoisyDeviceStopsAtMaxTimeUnconverged) {
  FakeDevice d;
  d.times = {1.0, 3.0, 2.0, 5.0};  // never under 1% noise
  TimingSettings t = quick();
  t.max_time_s = 0.1;
  NoiseTarget stop(t);
  const Samples s = take_samples(d.source(), t, stop);
  EXPECT_FALSE(s.converged);
  EXPECT_GE(s.wall_s, 0.1);
  EXPECT_LT(s.ms.size(), 50u);
}

TEST(Sampler, SamplesUnderTheClockRatioAreDroppedThenKeptAndMarkedThrottled) {
  FakeDevice d;
  d.times = {2.0};
  d.clock_mhz = {1000};  // always under 0.75 * 1980
  TimingSettings t = quick();
  t.max_throttled_retries = 3;
  t.recovery_s = 0.5;
  NoiseTarget stop(t);
  const Samples s = take_samples(d.source(), t, stop);
  EXPECT_EQ(s.discarded, 3);
  EXPECT_EQ(d.pauses, (std::vector<double>{0.5, 0.5, 0.5}));
  EXPECT_TRUE(s.throttled);
  EXPECT_EQ(s.ms.size(), 5u);
}

TEST(Sampler, AOneOffSlowSampleIsDroppedAndTheRestAreClean) {
  FakeDevice d;
  d.times = {2.0};
  d.clock_mhz = {1980, 1980, 1980, 900, 1980, 1980, 1980, 1980, 1980, 1980, 1980, 1980};
  TimingSettings t = quick();
  NoiseTarget stop(t);
  const Samples s = take_samples(d.source(), t, stop);
  EXPECT_EQ(s.discarded, 1);
  EXPECT_FALSE(s.throttled);
  EXPECT_EQ(s.readings.size(), s.ms.size());
}

TEST(Sampler, AGpuWarmsUpForWarmupSecondsToo) {
  FakeDevice d;
  d.times = {10.0};  // 10 ms a run: 0.2 s of warm-up is 20 runs
  TimingSettings t = quick();
  t.warmup_s = 0.2;
  NoiseTarget stop(t);
  take_samples(d.source(/*gpu=*/true), t, stop);
  EXPECT_GE(d.runs, 20 + 5);
  EXPECT_LE(d.runs, 21 + 5);  // the wall clock is a sum of doubles
}

}  // namespace
}  // namespace attn

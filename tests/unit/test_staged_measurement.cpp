// Staged measurement (record/measure_settings.hpp, measure/race.hpp) on a fake device whose configurations'
// true times the test writes: what a screen, a race round and a confirmation sample, which configurations the
// race retires and when, the order confirmations run in, a configuration failing when measured again, the
// warm-up after an idle gap, and that the ranking takes its winners from the confirmed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tuner/measure/race.hpp"
#include "tuner/measure/stage_timing.hpp"
#include "tuner/record/leaderboard.hpp"

namespace attn {
namespace {

// Configuration X of one kernel on one shape.
Job job_of(long long x) { return Job{"k", "s", {{"X", ParamValue(x)}}, ""}; }

// N samples of a device that takes TRUE_MS, spread +-2% in a fixed pattern.
SampleStats samples(double true_ms, int n) {
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(true_ms * (1.0 + 0.02 * ((i * 5) % 9 - 4) / 4.0));
  return SampleStats::of(s);
}

// A device on which configuration X takes times[X]; it records each request.
struct FakeDevice {
  std::vector<double> times;
  RunSettings settings;
  std::vector<std::pair<MeasureStep, std::vector<long long>>> requests;
  std::map<long long, Status> fails_again;  // X -> the status it gets when measured again

  int sample_count(const MeasureStep& step) const {
    const TimingSettings t = stage_timing(settings.timing, settings.measure, step);
    return step.stage == Stage::confirm ? std::max(t.min_samples, 50) : t.max_samples;
  }
  ConfigResult measure(const Job& job, const MeasureStep& step) const {
    ConfigResult r;
    r.job = job;
    r.stage = step.stage;
    const long long x = job.config.at(0).second.integer();
    if (!step.first() && fails_again.contains(x)) {
      r.status = fails_again.at(x);
      r.reason = "rel_l2 0.5";
      return r;
    }
    r.status = Status::ok;
    r.timing = samples(times.at(static_cast<std::size_t>(x)), sample_count(step));
    return r;
  }
  std::vector<ConfigResult> screen_all() const {
    std::vector<ConfigResult> out;
    for (std::size_t x = 0; x < times.size(); ++x)
      out.push_back(measure(job_of(static_cast<long long>(x)), first_step(settings.measure)));
    return out;
  }
  MeasureAgain again() {
    return [this](const std::vector<Job>& jobs, const MeasureStep& step) {
      std::vector<long long> xs;
      std::vector<ConfigResult> out;
      for (const auto& j : jobs) {
        xs.push_back(j.config.at(0).second.integer());
        out.push_back(measure(j, step));
      }
      requests.emplace_back(step, xs);
      return out;
    };
  }
  // Every X measured again at STAGE, in request order.
  std::vector<long long> measured_at(Stage stage) const {
    std::vector<long long> xs;
    for (const auto& [step, got] : requests)
      if (step.stage == stage) xs.insert(xs.end(), got.begin(), got.end());
    return xs;
  }
};

// Four near the best, then clear losers from 1.2x to 3x.
FakeDevice typical_space() {
  FakeDevice d;
  d.times = {1.03, 1.0, 1.005, 1.02};
  for (int i = 0; i < 16; ++i) d.times.push_back(1.2 + 0.12 * i);
  d.settings.ties.rounds = 0;  // ties have tests of their own
  return d;
}

TEST(StageTiming, AScreenIsAFewSamplesARaceRoundDoublesAndAConfirmationIsTheFullMeasurement) {
  TimingSettings full;
  MeasureSettings m;
  const TimingSettings screen = stage_timing(full, m, {Stage::screen, 0});
  EXPECT_EQ(screen.min_samples, 3);
  EXPECT_EQ(screen.max_samples, 10);
  EXPECT_DOUBLE_EQ(screen.max_time_s, 0.005);
  EXPECT_EQ(stage_timing(full, m, {Stage::race, 0}).min_samples, 20);
  EXPECT_EQ(stage_timing(full, m, {Stage::race, 1}).max_samples, 40);
  EXPECT_EQ(stage_timing(full, m, {Stage::race, 30}).max_samples, full.max_samples);  // never past the full one
  const TimingSettings confirm = stage_timing(full, m, {Stage::confirm, 0});
  EXPECT_EQ(confirm.min_samples, full.min_samples);
  EXPECT_DOUBLE_EQ(confirm.max_noise, full.max_noise);
  EXPECT_DOUBLE_EQ(confirm.max_time_s, full.max_time_s);
  EXPECT_EQ(first_step(m).stage, Stage::screen);
  EXPECT_EQ(first_step(MeasureSettings{MeasureMode::thorough}).stage, Stage::thorough);
}

TEST(StageTiming, AGpuIsWarmedUpOnceThenOnlyAfterAnIdleGapAndWhenTheConfirmationsBegin) {
  MeasureSettings m;  // idle_gap_s 1
  const Stage screen = Stage::screen, confirm = Stage::confirm;
  EXPECT_TRUE(warm_up_by_time(m, {screen, 0}, true, -1, screen));     // the worker's first timing
  EXPECT_FALSE(warm_up_by_time(m, {screen, 0}, true, 0.05, screen));  // right after the last configuration
  EXPECT_FALSE(warm_up_by_time(m, {Stage::race, 1}, true, 0.5, Stage::race));
  EXPECT_TRUE(warm_up_by_time(m, {screen, 0}, true, 2.0, screen));         // idle: the clock has risen again
  EXPECT_TRUE(warm_up_by_time(m, {confirm, 0}, true, 0.01, Stage::race));  // to the sustained clock
  EXPECT_FALSE(warm_up_by_time(m, {confirm, 0}, true, 0.01, confirm));     // already there
  EXPECT_TRUE(warm_up_by_time(m, {confirm, 0}, true, 3.0, confirm));       // idle in between
  EXPECT_FALSE(warm_up_by_time(m, {screen, 0}, false, -1, screen));        // a CPU has no boost to wait out
  EXPECT_TRUE(warm_up_by_time(MeasureSettings{MeasureMode::thorough}, {Stage::thorough, 0}, true, 0.01, Stage::thorough));
}

TEST(Race, ClearLosersRetireAfterTheirScreenAndTheTopIsConfirmedFastestFirst) {
  FakeDevice d = typical_space();
  std::vector<ConfigResult> results = d.screen_all();
  const RaceSummary s = race_and_confirm(results, d.again(), d.settings);

  // 1.2x and slower are beyond 3% + two noise bands of the best after a screen: never measured again.
  for (long long x : d.measured_at(Stage::race)) EXPECT_LT(x, 4) << x;
  for (long long x : d.measured_at(Stage::confirm)) EXPECT_LT(x, 4) << x;
  // The four near the best are confirmed, fastest first.
  EXPECT_EQ(d.measured_at(Stage::confirm), (std::vector<long long>{1, 2, 3, 0}));
  EXPECT_EQ(s.screened, 20);
  EXPECT_EQ(s.confirmed, 4);
  EXPECT_EQ(s.retired, 16);
  for (const auto& r : results) {
    const long long x = r.job.config.at(0).second.integer();
    EXPECT_EQ(r.stage, x < 4 ? Stage::confirm : Stage::screen) << x;
  }
  // The ranking takes its winner from the confirmed.
  const LeaderboardGroup g = ranked_group("k", "s", nlohmann::json::object(), results, {}, "");
  EXPECT_EQ(g.entries.front().job.key(), job_of(1).key());
  EXPECT_EQ(g.entries.front().stage, Stage::confirm);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(g.entries[i].stage, Stage::confirm) << i;
}

TEST(Race, SurvivorsGetRoundsWithTwiceTheSamplesUntilAtMostTheTopAreLeft) {
  FakeDevice d;
  d.settings.ties.rounds = 0;
  // Eight within 1% of each other: no screen tells them apart, so they race.
  d.times = {1.0, 1.002, 1.004, 1.006, 1.008, 1.01, 1.012, 1.014, 2.0};
  d.settings.measure.confirm_top = 2;
  d.settings.measure.race_rounds = 2;
  std::vector<ConfigResult> results = d.screen_all();
  race_and_confirm(results, d.again(), d.settings);
  ASSERT_GE(d.requests.size(), 2u);
  EXPECT_EQ(d.requests[0].first.stage, Stage::race);
  EXPECT_EQ(d.requests[0].first.round, 0);
  EXPECT_EQ(d.requests[0].second.size(), 8u);  // the 2x one retired after its screen
  EXPECT_EQ(d.requests.back().first.stage, Stage::confirm);
  EXPECT_EQ(d.requests.back().second, (std::vector<long long>{0, 1}));  // the top 2, fastest first
  int race_requests = 0;
  for (const auto& [step, _] : d.requests) race_requests += step.stage == Stage::race;
  EXPECT_LE(race_requests, 2);  // race_rounds
  for (const auto& r : results)
    if (r.job.config.at(0).second.integer() >= 2 && r.job.config.at(0).second.integer() < 8) {
      EXPECT_EQ(r.stage, Stage::race);  // raced, not confirmed
      EXPECT_EQ(r.timing->samples, 20 << (race_requests - 1)) << "the last round's samples";
    }
}

TEST(Race, AConfigurationThatFailsWhenMeasuredAgainTakesThatStatusAndDoesNotRank) {
  FakeDevice d = typical_space();
  d.fails_again[1] = Status::incorrect;  // the fastest screen
  std::vector<ConfigResult> results = d.screen_all();
  race_and_confirm(results, d.again(), d.settings);
  const auto& fastest = results[1];
  EXPECT_EQ(fastest.status, Status::incorrect);
  EXPECT_NE(fastest.reason.find("measured again (confirm): rel_l2 0.5"), std::string::npos) << fastest.reason;
  const LeaderboardGroup g = ranked_group("k", "s", nlohmann::json::object(), results, {}, "");
  EXPECT_EQ(g.entries.front().job.key(), job_of(2).key());
}

TEST(Race, ThoroughSweepsAndGroupsAnEarlierSweepMeasuredAreLeftAsTheyAre) {
  FakeDevice d = typical_space();
  d.settings.measure.mode = MeasureMode::thorough;
  std::vector<ConfigResult> results = d.screen_all();
  EXPECT_EQ(race_and_confirm(results, d.again(), d.settings).screened, 0);
  EXPECT_TRUE(d.requests.empty());

  FakeDevice replayed = typical_space();
  std::vector<ConfigResult> stored = replayed.screen_all();
  for (auto& r : stored) {
    r.replayed = true;
    r.stage = Stage::confirm;
  }
  race_and_confirm(stored, replayed.again(), replayed.settings);
  EXPECT_TRUE(replayed.requests.empty());
}

TEST(Race, ConfirmedTiesAreMeasuredAgainInFull) {
  FakeDevice d = typical_space();
  d.times[2] = 1.0;  // the same time as the best: a tie
  d.settings.ties.rounds = 3;
  std::vector<ConfigResult> results = d.screen_all();
  race_and_confirm(results, d.again(), d.settings);
  int tie_rounds = 0;
  for (const auto& [step, xs] : d.requests)
    if (step.stage == Stage::confirm && xs.size() >= 2 && std::find(xs.begin(), xs.end(), 1) != xs.end() &&
        std::find(xs.begin(), xs.end(), 2) != xs.end())
      ++tie_rounds;
  EXPECT_EQ(tie_rounds, 1 + 3);  // the confirmation, then three rounds in turns
  EXPECT_TRUE(results[1].tie.has_value());
  EXPECT_TRUE(results[2].tie.has_value());
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

TEST(Race, TheBaselinePresetIsConfirmedBesideTheTopSoBestVsBaselineComparesFullMeasurements) {
  FakeDevice d = typical_space();
  std::vector<ConfigResult> results = d.screen_all();
  results[10].job.preset = "baseline";  // 2.28x slower: retired after its screen, but confirmed anyway
  race_and_confirm(results, d.again(), d.settings);
  EXPECT_EQ(results[10].stage, Stage::confirm);
  EXPECT_EQ(d.measured_at(Stage::confirm).back(), 10);
}

}  // namespace
}  // namespace attn

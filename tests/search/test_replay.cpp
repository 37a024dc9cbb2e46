// Replay of a committed exhaustive leaderboard, in the library and on the command line.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/search/replay.hpp"

namespace attn {
namespace {

// The largest committed recorded space: 112 configurations per group.
std::filesystem::path recorded() { return test::source_dir() / "results/h200/flash_attn_decode.json"; }

TEST(Replay, ExhaustiveNeedsExactlyTheBestConfigurationsPositionInTheSweepOrder) {
  const Leaderboard lb = read_leaderboard(recorded());
  const LeaderboardGroup& group = lb.groups.front();
  const RecordedGroup g = RecordedGroup::of(group);
  // Position of the best in product order over the recorded values.
  long long position = 0;
  for (long long i = 0; i < g.space.product_size(); ++i) {
    const Config c = g.space.at(i);
    if (!g.space.valid(c)) continue;
    ++position;
    if (config_key(c) == config_key(group.best()->job.config)) break;
  }
  const ReplayResult r = replay(g, {"exhaustive", 0, 3, 1, {0.0}});
  ASSERT_EQ(r.within.size(), 1u);
  EXPECT_EQ(r.within[0].second.median, static_cast<double>(position));
  EXPECT_EQ(r.within[0].second.reached, 3);
  EXPECT_EQ(r.space_size, static_cast<long long>(group.entries.size()));
  EXPECT_DOUBLE_EQ(r.gap_at_budget.back().second, 0.0);
}

TEST(Replay, ABudgetTooSmallLeavesTheQuantilesItCannotReachEmpty) {
  const Leaderboard lb = read_leaderboard(recorded());
  const RecordedGroup g = RecordedGroup::of(lb.groups.front());
  const ReplayResult r = replay(g, {"random", 1, 20, 1, {0.0}});
  EXPECT_EQ(r.budget, 1);
  EXPECT_LT(r.within[0].second.reached, 20);
  EXPECT_FALSE(r.within[0].second.q3.has_value());
}

TEST(Replay, QuantilesInterpolateAndStopAtUnreachedRuns) {
  const std::vector<std::optional<double>> v{1.0, 2.0, 4.0, std::nullopt};
  EXPECT_DOUBLE_EQ(*quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(*quantile(v, 1.0 / 3), 2.0);
  EXPECT_DOUBLE_EQ(*quantile(v, 0.5), 3.0);
  EXPECT_FALSE(quantile(v, 0.75).has_value());
}

TEST(ReplayCommand, ReportsEvaluationsToWithinOneThreeAndFivePercentForEachGroup) {
  const auto r = test::run_cli({"replay", recorded().string(), "--strategy", "annealing", "--budget-evals", "40", "--repeat",
                                "5", "--seed", "3", "--kernel", "decode_cpasync", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("strategy"), "annealing");
  ASSERT_EQ(j.at("groups").size(), 6u);
  for (const auto& g : j.at("groups")) {
    EXPECT_EQ(g.at("kernel"), "decode_cpasync");
    EXPECT_EQ(g.at("budget"), 40);
    ASSERT_EQ(g.at("evaluations_to_within").size(), 3u);
    EXPECT_EQ(g.at("evaluations_to_within")[1].at("within"), 0.03);
    EXPECT_EQ(g.at("best_at_budget").back().at("budget"), 40);
  }
  // The same seed gives the same report, but for the strategy's own time (measured, never the same twice).
  const auto again = test::run_cli({"replay", recorded().string(), "--strategy", "annealing", "--budget-evals", "40",
                                    "--repeat", "5", "--seed", "3", "--kernel", "decode_cpasync", "--json"});
  auto untimed = [](nlohmann::json report) {
    for (auto& g : report.at("groups")) {
      EXPECT_GE(g.at("strategy_ms_per_evaluation_median").get<double>(), 0.0);
      g.erase("strategy_ms_per_evaluation_median");
    }
    return report;
  };
  EXPECT_EQ(untimed(nlohmann::json::parse(again.out)), untimed(j));
  // Each run's improvements of its best: evaluations increasing within the budget, times decreasing.
  for (const auto& g : j.at("groups"))
    for (const auto& run : g.at("runs")) {
      long long last_at = 0;
      double last_ms = 1e300;
      for (const auto& step : run.at("improvements")) {
        EXPECT_GT(step[0].get<long long>(), last_at);
        EXPECT_LE(step[0].get<long long>(), 40);
        EXPECT_LT(step[1].get<double>(), last_ms);
        last_at = step[0];
        last_ms = step[1];
      }
      EXPECT_EQ(last_ms, run.at("best_ms").get<double>());
    }
}

// The large recorded space the strategy benchmark searches: 2,016 configurations on each of four decode shapes.
std::filesystem::path recorded_large() { return test::source_dir() / "results/h200/large/flash_attn_decode_large.json.gz"; }

TEST(ReplayCommand, TheDefaultStrategyOnTheLargeRecordedSpaceStaysInItsBudgetAndFindsRecordedConfigurations) {
  const Leaderboard lb = read_leaderboard(recorded_large());
  const auto r = test::run_cli(
      {"replay", recorded_large().string(), "--strategy", "surrogate", "--budget-evals", "30", "--repeat", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("groups").size(), 4u);
  ASSERT_EQ(lb.groups.size(), 4u);
  for (const auto& g : j.at("groups")) {
    const auto group = std::find_if(lb.groups.begin(), lb.groups.end(), [&](const LeaderboardGroup& l) {
      return l.kernel == g.at("kernel") && l.shape == g.at("shape");
    });
    ASSERT_NE(group, lb.groups.end()) << g.at("kernel") << " on " << g.at("shape");
    ASSERT_EQ(g.at("runs").size(), 3u);
    for (const auto& run : g.at("runs")) {
      EXPECT_LE(run.at("evaluations").get<long long>(), 30);
      EXPECT_EQ(run.at("evaluations").get<long long>(),
                std::min<long long>(30, static_cast<long long>(group->entries.size())));
      // The best found is a configuration the sweep recorded as ok, with its recorded median.
      ASSERT_FALSE(run.at("best").is_null());
      const LeaderboardEntry* entry = group->find(run.at("best").get<std::string>());
      ASSERT_NE(entry, nullptr) << run.at("best");
      ASSERT_EQ(entry->status, Status::ok);
      EXPECT_DOUBLE_EQ(run.at("best_ms").get<double>(), entry->timing->median_ms);
      EXPECT_GE(run.at("best_ms").get<double>(), g.at("best_ms").get<double>());
    }
  }
}

TEST(ReplayCommand, AnUnknownStrategyOrAnUnmatchedShapeIsAUsageError) {
  const auto bad = test::run_cli({"replay", recorded().string(), "--strategy", "hillclimb"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("hillclimb"), std::string::npos) << bad.err;
  const auto none = test::run_cli({"replay", recorded().string(), "--strategy", "random", "--shape", "nope"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no (kernel, shape) group"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace attn

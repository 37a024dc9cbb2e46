// Replay of a committed exhaustive leaderboard, in the library and on the command line.
#include <gtest/gtest.h>

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
  const auto r = test::run_cli({"replay", recorded().string(), "--strategy", "annealing", "--budget-evals", "40",
                                "--repeat", "5", "--seed", "3", "--kernel", "decode_cpasync", "--json"});
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
  // The same seed gives the same report.
  const auto again = test::run_cli({"replay", recorded().string(), "--strategy", "annealing", "--budget-evals", "40",
                                    "--repeat", "5", "--seed", "3", "--kernel", "decode_cpasync", "--json"});
  EXPECT_EQ(again.out, r.out);
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

// `sweep --check determinism --require deterministic,batch-invariant` on PoCL:
// every ranked configuration carries its verdicts, the batch-dependent split
// mode keeps its time but is excluded from the ranking with the reason, and
// the group reports the cost of determinism.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/test_support.hpp"
#include "tuner/record/leaderboard_table.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/sweep/sweep.hpp"

namespace attn {
namespace {

const nlohmann::json& entry(const nlohmann::json& group, const std::string& preset) {
  for (const auto& e : group.at("entries"))
    if (e.value("preset", "") == preset) return e;
  throw std::runtime_error("no entry for preset " + preset);
}

TEST(DeterminismSweep, RequiredChecksDecideTheRankingAndTheCostIsReported) {
  set_worker_executable(test::binary());
  test::TempDir dir;
  SweepOptions opt;
  opt.spec_path = test::data("determinism/decode_modes.json");
  opt.kernels = {"decode_split"};
  opt.device_id = "opencl:0:0";
  opt.out = dir / "lb.json";
  opt.settings.isolate = true;  // the settings travel to the worker as JSON
  opt.settings.timing.min_samples = 3;
  opt.settings.timing.max_time_s = 0.02;
  opt.settings.determinism.enabled = true;
  opt.settings.determinism.runs = 3;
  opt.settings.determinism.batch_sizes = {2, 8};
  opt.settings.determinism.require = {"deterministic", "batch_invariant"};
  Progress quiet(stderr, false, true);
  const SweepOutcome outcome = run_sweep(opt, quiet);
  const nlohmann::json& lb = outcome.leaderboard;
  ASSERT_EQ(lb.at("groups").size(), 1u);
  const nlohmann::json& g = lb.at("groups")[0];
  EXPECT_EQ(lb.at("settings").at("determinism").at("require"),
            (std::vector<std::string>{"deterministic", "batch_invariant"}));

  const auto& det = entry(g, "deterministic");
  EXPECT_EQ(det.at("status"), "ok");
  EXPECT_TRUE(det.contains("rank")) << det.dump(2);
  EXPECT_EQ(det.at("checks").at("deterministic"), true);
  EXPECT_EQ(det.at("checks").at("batch_invariant"), true);
  EXPECT_EQ(det.at("checks").at("cache_growth"), true);
  EXPECT_EQ(det.at("checks").at("details").at("cross_run").at("runs"), 3);

  const auto& heuristic = entry(g, "heuristic");
  EXPECT_EQ(heuristic.at("status"), "ok") << "verified and timed, only not ranked";
  EXPECT_TRUE(heuristic.contains("timing"));
  EXPECT_FALSE(heuristic.contains("rank"));
  const std::string why = heuristic.at("excluded");
  EXPECT_EQ(why.rfind("not batch-invariant: o[b=0,h=", 0), 0u) << why;
  EXPECT_NE(why.find("(B=1) vs"), std::string::npos) << why;
  EXPECT_NE(why.find("(B=8)"), std::string::npos) << why;

  const auto& atomic = entry(g, "atomic");
  EXPECT_EQ(atomic.at("status"), "ok") << "the atomic combine verifies: " << atomic.dump(2);

  const auto& d = g.at("determinism");
  EXPECT_EQ(d.at("criterion"), (std::vector<std::string>{"deterministic", "batch_invariant"}));
  EXPECT_EQ(d.at("checked"), 3);
  EXPECT_GE(d.at("passing").get<int>(), 1);
  EXPECT_GE(g.at("excluded").get<int>(), 1);
  EXPECT_EQ(d.at("passing").get<int>() + g.at("excluded").get<int>(), 3);
  const double cost = d.at("cost").get<double>();
  EXPECT_GE(cost, 1.0);
  EXPECT_DOUBLE_EQ(
      cost, d.at("fastest_passing").at("median_ms").get<double>() / d.at("fastest_overall").at("median_ms").get<double>());
  // The best is the fastest passing configuration, or one the timing cannot tell from it: a tie
  // (measured again in turns), which the tie rule ranks by resources rather than by the median.
  const std::string best = g.at("best").at("key"), fastest = d.at("fastest_passing").at("key");
  if (best != fastest) {
    ASSERT_TRUE(g.contains("ties")) << best << " ranks first, ahead of the faster passing " << fastest;
    const auto tied = g.at("ties").at("tied").get<std::vector<std::string>>();
    EXPECT_NE(std::find(tied.begin(), tied.end(), best), tied.end()) << g.at("ties").dump();
    EXPECT_NE(std::find(tied.begin(), tied.end(), fastest), tied.end()) << g.at("ties").dump();
  }

  const std::string table = leaderboard_table(outcome.leaderboard, 5);
  EXPECT_NE(table.find("det/bi/cg"), std::string::npos) << table;
  EXPECT_NE(table.find("y/y/y"), std::string::npos) << table;
  EXPECT_NE(table.find("determinism: fastest deterministic + batch_invariant"), std::string::npos) << table;
  EXPECT_NE(table.find("excluded by --require"), std::string::npos) << table;
}

TEST(DeterminismSweep, WithoutRequireEverythingRanksAndStillShowsTheCost) {
  test::TempDir dir;
  SweepOptions opt;
  opt.spec_path = test::data("determinism/nondeterministic.json");
  opt.device_id = "opencl:0:0";
  opt.out = dir / "lb.json";
  opt.settings.isolate = false;
  opt.settings.timing.min_samples = 3;
  opt.settings.timing.max_time_s = 0.02;
  opt.settings.determinism.enabled = true;
  opt.settings.determinism.batch_sizes = {2};
  Progress quiet(stderr, false, true);
  const nlohmann::json lb = run_sweep(opt, quiet).leaderboard;
  const nlohmann::json& g = lb.at("groups")[0];
  EXPECT_TRUE(entry(g, "counter").contains("rank"));
  EXPECT_EQ(entry(g, "counter").at("checks").at("deterministic"), false);
  EXPECT_FALSE(g.contains("excluded"));
  EXPECT_EQ(g.at("determinism").at("passing"), 1);
  EXPECT_EQ(g.at("determinism").at("fastest_passing").at("preset"), "correct");
}

}  // namespace
}  // namespace attn

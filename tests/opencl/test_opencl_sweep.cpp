// Real sweeps on PoCL: every planted fault of the testbed kernel ends in its
// own status, the compiler's log is kept, and the working configurations rank.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/support/test_support.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/sweep/sweep.hpp"

namespace attn {
namespace {

const nlohmann::json* find_entry(const nlohmann::json& group, const std::string& key) {
  for (const auto& e : group.at("entries"))
    if (e.at("key") == key) return &e;
  return nullptr;
}

class TestbedSweep : public ::testing::TestWithParam<bool> {};

TEST_P(TestbedSweep, EveryFaultGetsItsStatusAndTheRestRank) {
  set_worker_executable(test::binary());
  test::TempDir dir;
  SweepOptions opt;
  opt.spec_path = test::data("testbed.json");
  opt.device_id = "opencl:0:0";
  opt.out = dir / "lb.json";
  opt.settings.isolate = GetParam();
  opt.settings.timing.min_samples = 3;
  opt.settings.timing.max_time_s = 0.02;
  Progress quiet(stderr, false, true);
  const SweepOutcome outcome = run_sweep(opt, quiet);
  const nlohmann::json& lb = outcome.leaderboard;

  EXPECT_EQ(lb.at("schema"), kLeaderboardSchema);
  EXPECT_TRUE(lb.at("complete").get<bool>());
  ASSERT_EQ(lb.at("groups").size(), 2u);
  for (const auto& g : lb.at("groups")) {
    SCOPED_TRACE(g.at("shape").get<std::string>());
    for (int wg : {8, 16}) {
      const auto* ok = find_entry(g, fmt::format("WG={},FAULT=0,REPEAT=1", wg));
      ASSERT_TRUE(ok);
      EXPECT_EQ(ok->at("status"), "ok") << ok->dump();
      EXPECT_TRUE(ok->contains("rank"));
      EXPECT_GT(ok->at("timing").at("samples").get<int>(), 2);
      EXPECT_TRUE(ok->at("verify").at("passed").get<bool>());
      EXPECT_GT(ok->at("resources").at("testbed_attention").at("max_work_group_size").get<int>(), 0);

      const auto* no_compile = find_entry(g, fmt::format("WG={},FAULT=1,REPEAT=1", wg));
      ASSERT_TRUE(no_compile);
      EXPECT_EQ(no_compile->at("status"), "compile_failed");
      EXPECT_NE(no_compile->at("log").get<std::string>().find("planted compile failure"), std::string::npos);
      EXPECT_NE(no_compile->at("reason").get<std::string>().find("planted compile failure"), std::string::npos);
      EXPECT_FALSE(no_compile->contains("rank"));

      const auto* wrong = find_entry(g, fmt::format("WG={},FAULT=2,REPEAT=1", wg));
      EXPECT_EQ(wrong->at("status"), "incorrect");
      EXPECT_FALSE(wrong->contains("timing")) << "an incorrect configuration must not be timed";

      const auto* unwritten = find_entry(g, fmt::format("WG={},FAULT=3,REPEAT=1", wg));
      EXPECT_EQ(unwritten->at("status"), "incorrect");
      EXPECT_GT(unwritten->at("verify").at("nonfinite").get<int>(), 0);
    }
    const auto* big = find_entry(g, "WG=64,FAULT=0,REPEAT=1");
    ASSERT_TRUE(big);
    EXPECT_EQ(big->at("status"), "skipped");
    EXPECT_EQ(big->at("reason"), "constraint `WG <= Nq` is false");
    EXPECT_EQ(g.at("counts").at("ok").get<int>(), 2);
    EXPECT_EQ(g.at("baseline").at("preset"), "correct");
    // Rank 1 is at least as fast as the baseline, unless the two tied within noise and the tie rule ranked the
    // other first (tuner/record/ties.hpp): then it is the tied set's winner.
    if (g.contains("ties")) EXPECT_EQ(g.at("ties").at("winner"), g.at("best").at("key"));
    else EXPECT_GE(g.at("baseline").at("best_speedup").get<double>(), 1.0);
  }
  EXPECT_TRUE(std::filesystem::exists(outcome.leaderboard_path));
  EXPECT_TRUE(std::filesystem::exists(outcome.journal_path));
}

INSTANTIATE_TEST_SUITE_P(OpenCl, TestbedSweep, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Isolated" : "InProcess"; });

}  // namespace
}  // namespace attn

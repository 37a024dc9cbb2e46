// Timing policies, clock records and --recheck end to end on PoCL: real sweeps
// of the testbed kernel (tests/data/export/gate.json, about a second each).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/gate/recheck.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string gate_spec() { return test::data("export/gate.json").string(); }

// Sweeps the testbed spec on PoCL into OUT with EXTRA options; returns OUT.
std::string sweep(const std::filesystem::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"sweep",      gate_spec(),  "--device", "opencl:0:0", "--out",
                                out.string(), "--max-time", "0.1",      "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out.string();
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text_file(path)); }

// Every ok entry of a leaderboard file.
std::vector<nlohmann::json> ok_entries(const nlohmann::json& lb) {
  std::vector<nlohmann::json> out;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries"))
      if (e.at("status") == "ok") out.push_back(e);
  return out;
}

TEST(TimingPolicyPocl, ResultsOnPoclCarryNoClockFields) {
  test::TempDir dir;
  const auto lb = read_json(sweep(dir / "cold.json"));
  EXPECT_EQ(lb.at("settings").at("timing").at("policy"), "cold");
  const auto entries = ok_entries(lb);
  ASSERT_FALSE(entries.empty());
  for (const auto& e : entries) {
    EXPECT_TRUE(e.contains("timing")) << e.dump();
    EXPECT_FALSE(e.contains("clocks")) << "PoCL has no NVML: no clock fields, not zeros: " << e.dump();
  }
}

TEST(TimingPolicyPocl, WarmAndColdTimingBothRunAndAreRecorded) {
  test::TempDir dir;
  const auto warm = read_json(sweep(dir / "warm.json", {"--timing", "warm"}));
  const auto cold = read_json(sweep(dir / "cold.json", {"--timing", "cold"}));
  EXPECT_EQ(warm.at("settings").at("timing").at("policy"), "warm");
  EXPECT_EQ(warm.at("settings").at("timing").at("flush_cache"), false);
  EXPECT_EQ(cold.at("settings").at("timing").at("policy"), "cold");
  for (const auto* lb : {&warm, &cold}) {
    const auto entries = ok_entries(*lb);
    EXPECT_EQ(entries.size(), 2u) << lb->dump();
    for (const auto& e : entries) EXPECT_GT(e.at("timing").at("median_ms").get<double>(), 0.0);
  }
}

TEST(TimingPolicyPocl, GateRefusesToCompareResultsOfDifferentPolicies) {
  test::TempDir dir;
  const auto cold = sweep(dir / "cold.json"), warm = sweep(dir / "warm.json", {"--timing", "warm"});
  const auto r = run_cli({"gate", "--baseline", cold, "--candidate", warm});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "cannot compare results of different timing policies")) << r.err;
  EXPECT_TRUE(contains(r.err, "cold.json (cold)") && contains(r.err, "warm.json (warm)")) << r.err;
  // The same policy compares as before.
  const auto again = run_cli({"gate", "--baseline", cold, "--candidate", cold});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
}

TEST(TimingPolicyPocl, ExportRefusesToMergeResultsOfDifferentPolicies) {
  test::TempDir dir;
  const auto cold = sweep(dir / "cold.json"), warm = sweep(dir / "warm.json", {"--timing", "warm"});
  const auto r = run_cli({"export", cold, warm, "-o", (dir / "tuned.hpp").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "cannot merge results of different timing policies")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "tuned.hpp"));
}

TEST(TimingPolicyPocl, GraphTimingOnOpenclIsAUsageError) {
  test::TempDir dir;
  const auto r = run_cli(
      {"sweep", gate_spec(), "--device", "opencl:0:0", "--out", (dir / "g.json").string(), "--timing", "graph", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "--timing graph")) << r.err;
  const auto bad = run_cli({"sweep", gate_spec(), "--device", "opencl:0:0", "--timing", "lukewarm"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "unknown timing policy 'lukewarm'")) << bad.err;
}

TEST(BenchRecheckPocl, AFreshSweepIsReproducedWithinAGenerousTolerance) {
  test::TempDir dir;
  const auto lb = sweep(dir / "lb.json");
  const auto r = run_cli({"bench", "--recheck", lb, "--top", "2", "--rounds", "2", "--tolerance", "1000"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 of 2 configurations within 1000.0% of their recorded median")) << r.out;
  EXPECT_TRUE(contains(r.err, "round 2 of 2")) << r.err;
}

TEST(BenchRecheckPocl, RecordedMediansThatCannotBeReproducedFail) {
  test::TempDir dir;
  const auto path = sweep(dir / "lb.json");
  // A leaderboard claiming every configuration ran 100x faster than it does.
  auto lb = read_json(path);
  for (auto& g : lb.at("groups"))
    for (auto& e : g.at("entries"))
      if (e.at("status") == "ok") e["timing"]["median_ms"] = e["timing"]["median_ms"].get<double>() / 100;
  const auto wrong = dir.write("wrong.json", lb.dump(1));
  const auto r = run_cli({"bench", "--recheck", wrong.string(), "--rounds", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "DIFFERS")) << r.out;
  EXPECT_TRUE(contains(r.out, "0 of 2 configurations within 3.0%")) << r.out;
}

TEST(Recheck, TimesTheTopConfigurationsInterleavedAndComparesMedians) {
  // Two configurations recorded at 1.0 and 2.0 ms; measured now A B A B A B.
  Leaderboard lb;
  LeaderboardGroup g;
  g.kernel = "k";
  g.shape = "s";
  for (int i = 0; i < 3; ++i) {
    ConfigResult r;
    r.job = Job{"k", "s", Config{{"X", i}}, ""};
    r.status = Status::ok;
    r.timing = SampleStats::of({1.0 + i});
    LeaderboardEntry e{r};
    e.rank = i + 1;
    g.entries.push_back(e);
  }
  lb.groups.push_back(g);
  std::vector<std::string> order;
  const std::map<long long, std::vector<double>> now{{0, {1.01, 1.5, 0.99}}, {1, {2.2, 2.3, 2.1}}};
  std::map<long long, int> calls;
  RecheckInput in;
  in.recorded = &lb;
  in.top = 2;
  in.rounds = 3;
  in.measure = [&](const Job& job) {
    const long long x = job.config.front().second.integer();
    order.push_back(fmt::format("X={}", x));
    ConfigResult r;
    r.job = job;
    r.status = Status::ok;
    r.timing = SampleStats::of({now.at(x).at(static_cast<std::size_t>(calls[x]++))});
    return r;
  };
  const RecheckReport report = run_recheck(in);
  EXPECT_EQ(order, (std::vector<std::string>{"X=0", "X=1", "X=0", "X=1", "X=0", "X=1"}));
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(report.rows[0].retimed_median_ms, 1.01);  // the 1.5 outlier does not move the median
  EXPECT_TRUE(report.rows[0].within(0.03));
  EXPECT_NEAR(report.rows[1].difference, 0.10, 1e-9);
  EXPECT_FALSE(report.rows[1].within(0.03));
  EXPECT_EQ(report.failures(), 1);
  EXPECT_TRUE(contains(recheck_table(report), "1 of 2 configurations within 3.0%"));
}

}  // namespace
}  // namespace attn

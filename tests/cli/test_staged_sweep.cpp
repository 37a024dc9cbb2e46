// Staged measurement end to end on PoCL (docs/timing.md, "Stages"): a default sweep screens every configuration,
// retires the clear losers after their screen, confirms the top and ranks them first; --measure thorough
// measures every one in full; and a second sweep of unchanged code answers from the measurement store without
// measuring, until --remeasure.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

struct Swept {
  nlohmann::json group;
  std::string out, err;
};

// The suite's compile cache (the default one) unless EXTRA names another: the tests here compile the same eight
// programs.
Swept sweep(const test::TempDir& dir, const std::string& name, std::vector<std::string> extra = {}) {
  const fs::path out = dir / name;
  std::vector<std::string> args = {"sweep",      "tests/data/stages.json", "--device", "opencl:0:0", "--out",
                                   out.string(), "--confirm-top",          "2",        "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  return {lb.at("groups").at(0), r.out, r.err};
}

bool slow(const nlohmann::json& e) { return e.at("key").get<std::string>().find("REPEAT=16") != std::string::npos; }

TEST(StagedSweep, ScreensEveryConfigurationRetiresTheClearLosersAndRanksTheConfirmedFirst) {
  test::TempDir dir;
  const Swept s = sweep(dir, "staged.json");
  int confirmed = 0, raced = 0;
  for (const auto& e : s.group.at("entries")) {
    ASSERT_EQ(e.at("status"), "ok") << e.dump();
    const std::string stage = e.at("stage");
    if (slow(e)) {
      EXPECT_EQ(stage, "screen") << e.at("key");  // 8-11x: retired after its screen
    }
    confirmed += stage == "confirm";
    raced += stage == "race";
  }
  EXPECT_EQ(confirmed, 2);  // --confirm-top 2 of the four equal REPEAT=1 programs
  EXPECT_LE(raced, 2);      // the others: raced, or retired after a noisy screen
  const auto& first = s.group.at("entries").at(0);
  EXPECT_EQ(first.at("rank"), 1);
  EXPECT_EQ(first.at("stage"), "confirm");
  EXPECT_GE(first.at("timing").at("samples").get<int>(), 10);  // the full measurement's min_samples
  EXPECT_NE(s.err.find("stages:      8 screened, 6 retired by the race, 2 confirmed in full"), std::string::npos) << s.err;
  EXPECT_NE(s.out.find("screened"), std::string::npos) << s.out;
}

TEST(StagedSweep, MeasureThoroughMeasuresEveryConfigurationInFull) {
  test::TempDir dir;
  const Swept s = sweep(dir, "thorough.json", {"--measure", "thorough", "--max-time", "0.05"});
  for (const auto& e : s.group.at("entries")) EXPECT_EQ(e.at("stage"), "thorough") << e.at("key");
  EXPECT_EQ(s.err.find("stages:"), std::string::npos) << s.err;
  EXPECT_EQ(s.out.find("screened"), std::string::npos) << s.out;
}

TEST(StagedSweep, ASecondSweepOfUnchangedCodeAnswersFromTheStoreUntilRemeasure) {
  test::TempDir dir;
  // The suite turns the store off; on here, in a cache folder of this test's own, so that nothing but its own
  // first sweep can answer its second.
  ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "1", 1);
  const std::vector<std::string> cache = {"--cache-dir", (dir / "cache").string()};
  const Swept first = sweep(dir, "first.json", cache);
  EXPECT_EQ(first.err.find("answered from an earlier sweep"), std::string::npos) << first.err;
  const Swept again = sweep(dir, "again.json", cache);
  EXPECT_NE(again.err.find("8 results answered from an earlier sweep"), std::string::npos) << again.err;
  EXPECT_EQ(again.err.find("stages:"), std::string::npos) << again.err;  // nothing raced: nothing was measured
  EXPECT_EQ(again.group.at("best").at("key"), first.group.at("best").at("key"));
  for (const auto& e : again.group.at("entries")) EXPECT_TRUE(e.value("replayed", false)) << e.at("key");
  std::vector<std::string> remeasure = cache;
  remeasure.push_back("--remeasure");
  const Swept fresh = sweep(dir, "fresh.json", remeasure);
  EXPECT_EQ(fresh.err.find("answered from an earlier sweep"), std::string::npos) << fresh.err;
  for (const auto& e : fresh.group.at("entries")) EXPECT_FALSE(e.value("replayed", false)) << e.at("key");
  ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "0", 1);
}

}  // namespace
}  // namespace attn

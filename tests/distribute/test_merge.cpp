// `merge` puts shards back together into exactly what one sweep records, says
// what no shard measured, refuses shards that do not belong together, and
// re-times each group's fastest on one device.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include <fmt/format.h>

#include "tests/distribute/sweep_outcomes.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/record/shard.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// One sweep of tests/data/shards.json in one process and the same in three
// shards, run once for every test here (last shard first).
class Merge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    const auto whole = test::run_cli(test::sweep_args("tests/data/shards.json", *dir_ / "whole.json"));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    for (const char* shard : {"2/3", "0/3", "1/3"}) {
      const auto r = test::run_cli(test::sweep_args("tests/data/shards.json", *dir_ / "lb.json", {"--shard", shard}));
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path shard(int i) { return *dir_ / fmt::format("lb.shard-{}-of-3.json", i); }
  static fs::path whole() { return *dir_ / "whole.json"; }

  // A copy of shard 1 with one field changed, as another sweep would have recorded it.
  static fs::path forged(const test::TempDir& dir, const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json lb = test::read_json(shard(1));
    change(lb);
    return dir.write("forged.json", lb.dump(2));
  }
  static test::CommandResult merge(std::vector<std::string> args) {
    args.insert(args.begin(), "merge");
    return test::run_cli(args);
  }

  static test::TempDir* dir_;
};
test::TempDir* Merge::dir_ = nullptr;

TEST_F(Merge, ShardsAreDisjointAndMergeIntoExactlyWhatOneSweepRecords) {
  std::size_t total = 0;
  std::set<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    const auto lb = test::read_json(shard(i));
    EXPECT_EQ(lb.at("shard").at("index"), i);
    for (const auto& [key, _] : test::statuses(lb)) {
      EXPECT_TRUE(seen.insert(key).second) << key << " in two shards";
      EXPECT_TRUE((Shard{i, 3, ""}.owns(key))) << key;
      ++total;
    }
  }
  EXPECT_EQ(total, 18u);  // the plan: 6 configurations of "short" (WG <= Nq), 12 of "long"

  test::TempDir out;
  const auto r = merge({shard(0).string(), shard(1).string(), shard(2).string(), "--out", (out / "merged.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = test::read_json(out / "merged.json");
  EXPECT_EQ(test::statuses(merged), test::statuses(whole()));
  EXPECT_TRUE(merged.at("complete").get<bool>());
  EXPECT_FALSE(merged.contains("missing"));
  EXPECT_EQ(merged.at("merged_from").size(), 3u);
  // Ranked again as one: ranks 1..n over the union in each group, the same counts per status.
  const auto one = test::read_json(whole());
  ASSERT_EQ(merged.at("groups").size(), one.at("groups").size());
  for (std::size_t i = 0; i < one.at("groups").size(); ++i) {
    const auto& g = merged.at("groups")[i];
    int rank = 0;
    for (const auto& e : g.at("entries")) {
      if (e.contains("rank")) {
        EXPECT_EQ(e.at("rank").get<int>(), ++rank);
      }
    }
    EXPECT_EQ(g.at("counts"), one.at("groups")[i].at("counts"));
  }
}

TEST_F(Merge, ConfigurationsNoShardMeasuredAreListed) {
  test::TempDir out;
  const auto r = merge({shard(0).string(), shard(2).string(), "--out", (out / "merged.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = test::read_json(out / "merged.json");
  std::set<std::string> missing, expected;
  for (const auto& k : merged.at("missing")) missing.insert(k.get<std::string>());
  for (const auto& [key, _] : test::statuses(shard(1))) expected.insert(key);
  EXPECT_EQ(missing, expected);
  EXPECT_FALSE(merged.at("complete").get<bool>());
  EXPECT_NE(r.err.find(fmt::format("{} configuration(s) of the plan measured by no shard", expected.size())),
            std::string::npos)
      << r.err;
}

TEST_F(Merge, ShardsOfAnotherSweepAreRefusedSayingWhatDiffers) {
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> cases = {
      {"spec (sha256)", [](nlohmann::json& lb) { lb["spec"]["sha256"] = std::string(64, '0'); }},
      {"--shape selection", [](nlohmann::json& lb) { lb["spec"]["shape_filter"] = "long"; }},
      {"kernel sources", [](nlohmann::json& lb) { lb["sources"]["opencl"]["sha256"] = std::string(64, 'f'); }},
      {"timing settings", [](nlohmann::json& lb) { lb["settings"]["timing"]["min_samples"] = 50; }},
      {"--seed", [](nlohmann::json& lb) { lb["settings"]["seed"] = 99; }},
      {"device model", [](nlohmann::json& lb) { lb["device"]["name"] = "NVIDIA H200"; }},
  };
  for (const auto& [what, change] : cases) {
    test::TempDir dir;
    const fs::path other = forged(dir, change);
    const auto r = merge({shard(0).string(), other.string(), "--out", (dir / "merged.json").string()});
    EXPECT_EQ(r.exit_code, 2) << what;
    EXPECT_NE(r.err.find("their " + what + " differ"), std::string::npos) << what << ": " << r.err;
    EXPECT_NE(r.err.find(other.string()), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "merged.json"));
  }
}

TEST_F(Merge, OverlappingShardsAreRefused) {
  test::TempDir dir;
  const auto r = merge({shard(0).string(), shard(0).string(), "--out", (dir / "merged.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shards overlap"), std::string::npos) << r.err;
}

TEST_F(Merge, ShardsOfCodeThatChangedSinceAreRefused) {
  test::TempDir dir;
  // The spec given is not the one the shards were swept from.
  const auto r = merge({shard(0).string(), "--spec", "tests/data/resume.json", "--out", (dir / "merged.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("measured with other code than is here now"), std::string::npos) << r.err;
}

TEST_F(Merge, WhatIsNotALeaderboardOrAnIncompleteRequestIsRefused) {
  test::TempDir dir;
  const fs::path junk = dir.write("junk.json", "{\"schema\": \"something else\"}");
  EXPECT_EQ(merge({junk.string(), "--out", (dir / "m.json").string()}).exit_code, 2);
  const auto no_device = merge({shard(0).string(), "--out", (dir / "m.json").string(), "--retime-top", "2"});
  EXPECT_EQ(no_device.exit_code, 2);
  EXPECT_NE(no_device.err.find("--retime-top needs --device"), std::string::npos) << no_device.err;
}

TEST_F(Merge, RetimeTopMeasuresEachGroupsFastestAgainOnOneDevice) {
  test::TempDir dir;
  const auto r = merge({shard(0).string(), shard(1).string(), shard(2).string(), "--out", (dir / "merged.json").string(),
                        "--retime-top", "2", "--device", "opencl:0:0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = test::read_json(dir / "merged.json");
  int retimed_groups = 0;
  for (const auto& g : merged.at("groups")) {
    std::set<std::string> top;
    for (const auto& e : g.at("entries"))
      if (e.contains("rank") && e.at("rank").get<int>() <= 2) top.insert(e.at("key").get<std::string>());
    if (top.empty()) continue;
    ++retimed_groups;
    ASSERT_TRUE(g.contains("retimed")) << g.at("shape");
    const auto& again = g.at("retimed");
    EXPECT_EQ(again.at("device"), "opencl:0:0");
    ASSERT_EQ(again.at("entries").size(), top.size());
    double previous = 0;
    for (const auto& e : again.at("entries")) {
      EXPECT_TRUE(top.contains(e.at("key").get<std::string>())) << e.dump();
      ASSERT_EQ(e.at("status"), "ok") << e.dump();
      EXPECT_GE(e.at("median_ms").get<double>(), previous) << "fastest first";
      previous = e.at("median_ms").get<double>();
    }
    EXPECT_EQ(again.at("best"), again.at("entries")[0].at("key"));
  }
  EXPECT_EQ(retimed_groups, 2);
}

}  // namespace
}  // namespace attn

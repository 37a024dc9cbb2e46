// Shards deal configurations by a hash of their key: disjoint, complete, and
// the same whatever the order of the plan or the other shards.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "tests/distribute/sweep_outcomes.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/record/shard.hpp"

namespace attn {
namespace {

std::vector<std::string> some_keys() {
  std::vector<std::string> keys;
  for (const char* shape : {"prefill-512", "decode-4k", "s"})
    for (int m : {16, 32, 64, 128})
      for (int n : {16, 32, 64})
        for (int dv : {32, 64, 128})
          keys.push_back(fmt::format("flash|{}|BLOCK_M={},BLOCK_N={},DV_TILE={}", shape, m, n, dv));
  return keys;
}

TEST(Shard, ShardsAreDisjointAndCoverEveryConfigurationForOneToSevenShards) {
  const auto keys = some_keys();
  for (int n = 1; n <= 7; ++n) {
    std::map<std::string, int> owners;
    std::vector<int> sizes(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      const Shard shard{i, n, "--shard"};
      for (const auto& k : keys)
        if (shard.owns(k)) {
          ++owners[k];
          ++sizes[static_cast<std::size_t>(i)];
        }
    }
    EXPECT_EQ(owners.size(), keys.size()) << "N=" << n << ": a configuration no shard owns";
    for (const auto& [k, count] : owners) EXPECT_EQ(count, 1) << "N=" << n << ": " << k << " in several shards";
    for (int size : sizes) EXPECT_GT(size, 0) << "N=" << n << ": an empty shard out of " << keys.size() << " keys";
  }
}

TEST(Shard, AShardDoesNotDependOnTheOrderOfThePlanNorOnOtherConfigurations) {
  auto keys = some_keys();
  const Shard shard{2, 5, "--shard"};
  std::set<std::string> in_order;
  for (const auto& k : keys)
    if (shard.owns(k)) in_order.insert(k);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(7));
  keys.resize(keys.size() / 2);  // half the plan: what is left keeps its shard
  for (const auto& k : keys) EXPECT_EQ(shard.owns(k), in_order.contains(k)) << k;
}

TEST(Shard, TheHashIsSha256OfTheKeySoEveryBuildDealsTheSame) {
  // int(sha256(key)[:16 hex], 16) % N for N = 1..7, computed with Python's hashlib.
  const std::vector<int> expected_long = {0, 0, 1, 2, 0, 4, 1}, expected_short = {0, 1, 0, 1, 0, 3, 2};
  for (int n = 1; n <= 7; ++n) {
    EXPECT_EQ(shard_of("naive|long|WG=4,FAULT=0", n), expected_long[static_cast<std::size_t>(n - 1)]) << n;
    EXPECT_EQ(shard_of("naive|short|WG=8,FAULT=2", n), expected_short[static_cast<std::size_t>(n - 1)]) << n;
  }
}

TEST(Shard, ShardArgumentsAreReadAndBadOnesRefused) {
  const Shard s = parse_shard("3/8");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 8);
  for (const char* bad : {"8/8", "-1/4", "1/0", "1", "a/b", "1/4x", ""}) EXPECT_THROW(parse_shard(bad), UsageError) << bad;
}

TEST(Shard, EachShardWritesItsOwnFile) {
  EXPECT_EQ(shard_path("results/fa.json", Shard{1, 4, ""}), "results/fa.shard-1-of-4.json");
  EXPECT_EQ(shard_path("results/fa.json", Shard{}), "results/fa.json");
}

TEST(Shard, ASearchStrategyCannotBeSharded) {
  test::TempDir dir;
  const auto r = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "lb.json",
                                                {"--shard", "0/2", "--strategy", "random", "--budget-evals", "2"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--shard splits the whole plan"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

// The shard and device a launcher gives through the environment: Slurm job
// arrays, torchrun, Open MPI; and what a sweep does with them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "tests/distribute/sweep_outcomes.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/sweep/launcher_env.hpp"

namespace attn {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(LauncherEnv, NoLauncherMeansNoShard) { EXPECT_FALSE(placement_from_environment(env_of({{"HOME", "/root"}}))); }

TEST(LauncherEnv, SlurmArrayTaskIdAndCountGiveTheShard) {
  const auto p = placement_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shard.index, 2);
  EXPECT_EQ(p->shard.count, 4);
  EXPECT_NE(p->shard.source.find("Slurm job array (SLURM_ARRAY_TASK_ID=2"), std::string::npos) << p->shard.source;
  EXPECT_FALSE(p->local_rank);
}

TEST(LauncherEnv, SlurmArrayMinAndMaxGiveTheShardOfAnArrayNotStartingAtZero) {
  const auto p = placement_from_environment(
      env_of({{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_MAX", "8"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shard.index, 2);
  EXPECT_EQ(p->shard.count, 4);
}

TEST(LauncherEnv, TorchrunRankAndWorldSizeGiveTheShardAndLocalRankTheDevice) {
  const auto p = placement_from_environment(env_of({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shard.index, 3);
  EXPECT_EQ(p->shard.count, 8);
  EXPECT_EQ(p->local_rank, 1);
  EXPECT_EQ(p->shard.source, "torchrun (RANK=3, WORLD_SIZE=8)");
}

TEST(LauncherEnv, OpenMpiRankAndSizeGiveTheShardAndLocalRankTheDevice) {
  const auto p = placement_from_environment(
      env_of({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shard.index, 1);
  EXPECT_EQ(p->shard.count, 2);
  EXPECT_EQ(p->local_rank, 0);
  EXPECT_NE(p->shard.source.find("Open MPI"), std::string::npos);
}

TEST(LauncherEnv, ASlurmArrayComesBeforeARankOfTheSameJob) {
  const auto p = placement_from_environment(
      env_of({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}, {"RANK", "0"}, {"WORLD_SIZE", "4"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shard.count, 2);
}

TEST(LauncherEnv, ValuesThatMakeNoShardAreRefusedNamingTheVariables) {
  const std::vector<std::map<std::string, std::string>> bad = {
      {{"RANK", "4"}, {"WORLD_SIZE", "4"}},
      {{"RANK", "x"}, {"WORLD_SIZE", "4"}},
      {{"RANK", "1"}},
      {{"SLURM_ARRAY_TASK_ID", "3"}},
      {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "0"}},
  };
  for (const auto& vars : bad) {
    try {
      placement_from_environment(env_of(vars));
      ADD_FAILURE() << "accepted " << vars.begin()->first;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(vars.begin()->first), std::string::npos) << e.what();
    }
  }
}

// Sets environment variables for the attn-tune processes a test starts; restores them after.
class ScopedEnv {
 public:
  explicit ScopedEnv(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {
    for (const auto& [k, v] : vars_) ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const auto& [k, _] : vars_) ::unsetenv(k.c_str());
  }

 private:
  std::map<std::string, std::string> vars_;
};

TEST(LauncherEnv, ASweepUnderTorchrunRunsItsShardOnTheDeviceOfItsLocalRankAndSaysSo) {
  ScopedEnv env({{"POCL_DEVICES", "pthread pthread"}, {"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}});
  test::TempDir dir;
  const auto r = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "lb.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("shard 1/2 from torchrun (RANK=1, WORLD_SIZE=2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("device opencl:0:1 from local rank 1"), std::string::npos) << r.err;
  const auto lb = test::read_json(dir / "lb.shard-1-of-2.json");
  EXPECT_EQ(lb.at("device").at("id"), "opencl:0:1");
  EXPECT_EQ(lb.at("shard").at("index"), 1);
  EXPECT_EQ(lb.at("shard").at("count"), 2);
  EXPECT_TRUE(std::filesystem::exists(dir / "lb.shard-1-of-2.json.journal.jsonl"));
  for (const auto& [key, _] : test::statuses(lb)) EXPECT_TRUE((Shard{1, 2, ""}.owns(key))) << key;
}

}  // namespace
}  // namespace attn

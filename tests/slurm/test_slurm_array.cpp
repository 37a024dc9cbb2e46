// A real Slurm: a one-node cluster on this machine (munged, slurmctld, slurmd
// started by one_node_cluster.sh), a job array of scripts/slurm/sweep-array.sbatch,
// and the merge of its shards, which must hold exactly what one sweep records.
// Skipped, saying why, where the daemons cannot run (not root, Slurm missing).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "tests/distribute/sweep_outcomes.hpp"
#include "tests/support/test_support.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

struct Shell {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Shell shell(const std::string& command) {
  Shell r;
  std::FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string why_slurm_cannot_run() {
  if (::geteuid() != 0) return "not root: the test cluster runs its daemons as root (SlurmUser=root)";
  for (const char* exe : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"})
    if (shell(fmt::format("command -v {}", exe)).exit_code != 0)
      return fmt::format("{} is not installed (Debian packages slurm-wlm and munge; scripts/install-deps.sh)", exe);
  return "";
}

// The cluster of one test: stopped however the test ends.
class OneNodeCluster {
 public:
  explicit OneNodeCluster(const fs::path& dir) : dir_(dir) {
    const Shell r = shell(fmt::format("{} start {}", quoted(script()), quoted(dir_)));
    started_ = r.exit_code == 0;
    log_ = r.output;
  }
  ~OneNodeCluster() { shell(fmt::format("{} stop {}", quoted(script()), quoted(dir_))); }
  bool started() const { return started_; }
  const std::string& log() const { return log_; }
  fs::path conf() const { return dir_ / "slurm.conf"; }

 private:
  static fs::path script() { return test::source_dir() / "tests/slurm/one_node_cluster.sh"; }
  fs::path dir_;
  bool started_ = false;
  std::string log_;
};

TEST(Slurm, AJobArrayOfShardsMergesIntoExactlyWhatOneSweepRecords) {
  if (const std::string why = why_slurm_cannot_run(); !why.empty()) GTEST_SKIP() << "no Slurm test cluster here: " << why;
  test::TempDir dir;
  OneNodeCluster cluster(dir / "cluster");
  if (!cluster.started()) GTEST_SKIP() << "the Slurm daemons cannot run here:\n" << cluster.log();

  const auto one = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "one.json"));
  ASSERT_EQ(one.exit_code, 0) << one.err;

  std::string sweep_args;  // the script runs `attn-tune sweep --resume ARGS...`
  const auto args = test::sweep_args("tests/data/shards.json", dir / "lb.json");
  for (auto a = args.begin() + 1; a != args.end(); ++a) sweep_args += " " + *a;
  const Shell submitted = shell(fmt::format(
      "cd {} && SLURM_CONF={} ATTN_TUNE={} sbatch --wait --array=0-3 --output={}/task-%a.log "
      "scripts/slurm/sweep-array.sbatch{}",
      quoted(test::source_dir()), quoted(cluster.conf()), quoted(test::binary()), dir.path().string(), sweep_args));
  std::string task_logs;
  for (int i = 0; i < 4; ++i)
    if (fs::exists(dir / fmt::format("task-{}.log", i))) task_logs += read_text_file(dir / fmt::format("task-{}.log", i));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output << task_logs;
  for (int i = 0; i < 4; ++i)
    EXPECT_NE(task_logs.find(fmt::format("shard {}/4 from Slurm job array (SLURM_ARRAY_TASK_ID={}", i, i)),
              std::string::npos)
        << task_logs;

  std::vector<std::string> merge = {"merge"};
  for (int i = 0; i < 4; ++i) merge.push_back((dir / fmt::format("lb.shard-{}-of-4.json", i)).string());
  merge.insert(merge.end(), {"--out", (dir / "merged.json").string()});
  const auto merged = test::run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto lb = test::read_json(dir / "merged.json");
  EXPECT_EQ(test::statuses(lb), test::statuses(dir / "one.json"));
  EXPECT_EQ(test::statuses(lb).size(), 18u);
  EXPECT_TRUE(lb.at("complete").get<bool>());
}

}  // namespace
}  // namespace attn

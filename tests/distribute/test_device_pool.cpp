// Several devices in one sweep: one worker each, one shared queue; a worker
// killed costs its configuration only; a killed sweep resumes losing nothing.
// PoCL exposes two CPU devices with POCL_DEVICES="pthread pthread".
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/distribute/sweep_outcomes.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/record/shard.hpp"
#include "tuner/runners/device_pool.hpp"
#include "tuner/sweep/distributed_sweep.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class TwoPoclDevices : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("POCL_DEVICES", "pthread pthread", 1); }
  void TearDown() override { ::unsetenv("POCL_DEVICES"); }
};

bool wait_for_results(const fs::path& journal, int n) {
  const auto deadline = std::chrono::steady_clock::now() + 300s;
  while (test::journaled_results(journal) < n && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  return test::journaled_results(journal) >= n;
}

TEST_F(TwoPoclDevices, TwoDevicesShareOneQueueAndRecordWhatOneDeviceWould) {
  test::TempDir dir;
  const auto one = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "one.json", {"--device", "opencl:0:0"}));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "two.json", {"--device", "opencl:all"}));
  ASSERT_EQ(two.exit_code, 0) << two.err;

  EXPECT_EQ(test::statuses(dir / "two.json"), test::statuses(dir / "one.json"));
  const auto lb = test::read_json(dir / "two.json");
  EXPECT_EQ(lb.at("devices"), nlohmann::json({"opencl:0:0", "opencl:0:1"}));
  std::set<std::string> measured_on;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries"))
      if (e.value("status", "") != "skipped") measured_on.insert(e.at("device").get<std::string>());
  EXPECT_EQ(measured_on, (std::set<std::string>{"opencl:0:0", "opencl:0:1"})) << "both devices took configurations";
  // One journal, every measured configuration in it once.
  EXPECT_EQ(test::journaled_results(dir / "two.json.journal.jsonl"), 18);
}

TEST_F(TwoPoclDevices, AWorkerKilledMidSweepCostsOnlyItsConfiguration) {
  test::TempDir dir;
  const auto reference = test::run_cli(test::sweep_args("tests/data/resume.json", dir / "reference.json"));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;

  const fs::path out = dir / "killed.json";
  const pid_t sweep =
      test::start_cli(test::sweep_args("tests/data/resume.json", out, {"--device", "opencl:0:0,opencl:0:1"}));
  ASSERT_TRUE(wait_for_results(fs::path(out.string() + ".journal.jsonl"), 3));
  const auto workers = test::worker_processes_of(sweep);
  ASSERT_EQ(workers.size(), 2u) << "one worker per device";
  ::kill(workers.front(), SIGKILL);
  int status = 0;
  ::waitpid(sweep, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the sweep goes on after a worker dies";

  const auto got = test::statuses(out), want = test::statuses(dir / "reference.json");
  ASSERT_EQ(got.size(), want.size());
  int killed = 0;
  for (const auto& [key, s] : got) {
    if (s == want.at(key)) continue;
    ++killed;
    EXPECT_EQ(s, "crashed") << key;
  }
  EXPECT_LE(killed, 1) << "only the configuration in flight on the killed worker";
  if (killed == 1) {
    std::string reasons;
    const auto lb = test::read_json(out);
    for (const auto& e : lb.at("groups")[0].at("entries"))
      if (e.at("status") == "crashed") reasons += e.value("reason", "");
    EXPECT_NE(reasons.find("signal 9"), std::string::npos) << "its reason names the signal: " << reasons;
  }
}

TEST_F(TwoPoclDevices, ASweepOnTwoDevicesKilledWholeResumesLosingNothingMeasured) {
  test::TempDir dir;
  const auto reference = test::run_cli(test::sweep_args("tests/data/resume.json", dir / "reference.json"));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;

  const fs::path out = dir / "killed.json", journal = out.string() + ".journal.jsonl";
  const auto args = test::sweep_args("tests/data/resume.json", out, {"--device", "opencl:all"});
  const pid_t sweep = test::start_cli(args);
  ASSERT_TRUE(wait_for_results(journal, 4));
  const auto workers = test::worker_processes_of(sweep);
  ::kill(sweep, SIGKILL);
  for (pid_t w : workers) ::kill(w, SIGKILL);  // as kill -9 of the whole process group would
  ::waitpid(sweep, nullptr, 0);
  const int before = test::journaled_results(journal);
  ASSERT_LT(before, 16) << "the sweep finished before it could be killed: make it longer";

  auto resumed_args = args;
  resumed_args.push_back("--resume");
  const auto resumed = test::run_cli(resumed_args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(test::statuses(out), test::statuses(dir / "reference.json"));
  EXPECT_EQ(test::journaled_results(journal), 16) << "nothing measured before the kill was measured again";
}

// Counts how many of its runners are inside run() at once.
struct Concurrency {
  std::mutex mutex;
  int running = 0;
  int most = 0;
};

// A device that takes a while over each job and records how many devices were busy meanwhile.
class SlowRunner : public ConfigRunner {
 public:
  SlowRunner(std::string id, Concurrency& seen, bool broken = false) : seen_(seen), broken_(broken) {
    info_.id = std::move(id);
  }
  ConfigResult run(const Job& job, const std::optional<MeasureStep>&) override {
    if (broken_) throw Error(info_.id + " cannot be opened");
    {
      std::lock_guard lock(seen_.mutex);
      seen_.most = std::max(seen_.most, ++seen_.running);
    }
    std::this_thread::sleep_for(100ms);
    std::lock_guard lock(seen_.mutex);
    --seen_.running;
    ConfigResult r;
    r.job = job;
    r.status = Status::ok;
    return r;
  }
  const DeviceInfo& device_info() override { return info_; }

 private:
  DeviceInfo info_;
  Concurrency& seen_;
  bool broken_;
};

std::vector<Job> jobs(int n) {
  std::vector<Job> out;
  for (int i = 0; i < n; ++i) out.push_back(Job{"k", "s", {{"X", i}}, ""});
  return out;
}

TEST(DevicePool, EachDeviceRunsAJobAtTheSameTimeAsTheOthers) {
  Concurrency seen;
  std::vector<std::unique_ptr<ConfigRunner>> runners;
  runners.push_back(std::make_unique<SlowRunner>("dev:0", seen));
  runners.push_back(std::make_unique<SlowRunner>("dev:1", seen));
  DevicePool pool({"dev:0", "dev:1"}, std::move(runners));
  std::map<std::string, int> by_device;
  std::set<std::string> keys;
  const std::sig_atomic_t stop = 0;
  pool.run(jobs(8),
           {[](const Job&) {},
            [&](ConfigResult&& r) {
              ++by_device[r.device];
              EXPECT_TRUE(keys.insert(r.job.key()).second) << r.job.key() << " ran twice";
              return true;
            }},
           stop);
  EXPECT_EQ(keys.size(), 8u);
  EXPECT_EQ(seen.most, 2) << "the two devices never ran at the same time";
  EXPECT_GE(by_device["dev:0"], 2);
  EXPECT_GE(by_device["dev:1"], 2);
}

TEST(DevicePool, ADeviceThatCannotRunLeavesItsJobsToTheOthers) {
  Concurrency seen;
  std::vector<std::unique_ptr<ConfigRunner>> runners;
  runners.push_back(std::make_unique<SlowRunner>("dev:0", seen, /*broken=*/true));
  runners.push_back(std::make_unique<SlowRunner>("dev:1", seen));
  DevicePool pool({"dev:0", "dev:1"}, std::move(runners));
  std::set<std::string> keys;
  const std::sig_atomic_t stop = 0;
  pool.run(jobs(4),
           {[](const Job&) {},
            [&](ConfigResult&& r) {
              EXPECT_EQ(r.device, "dev:1");
              keys.insert(r.job.key());
              return true;
            }},
           stop);
  EXPECT_EQ(keys.size(), 4u) << "every job ran on the device that works";
}

TEST(ShardResume, AShardKilledMidSweepResumesToItsShareOfTheWholeSweep) {
  test::TempDir dir;
  const auto reference = test::run_cli(test::sweep_args("tests/data/resume.json", dir / "reference.json"));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  std::map<std::string, std::string> share;  // what shard 0 of 2 holds of the whole sweep
  for (const auto& [key, status] : test::statuses(dir / "reference.json"))
    if (shard_of(key, 2) == 0) share[key] = status;
  ASSERT_GE(share.size(), 4u);

  const auto args = test::sweep_args("tests/data/resume.json", dir / "lb.json", {"--shard", "0/2"});
  const fs::path out = dir / "lb.shard-0-of-2.json", journal = out.string() + ".journal.jsonl";
  const pid_t sweep = test::start_cli(args);
  ASSERT_TRUE(wait_for_results(journal, 2));
  const auto workers = test::worker_processes_of(sweep);
  ::kill(sweep, SIGKILL);
  for (pid_t w : workers) ::kill(w, SIGKILL);
  ::waitpid(sweep, nullptr, 0);
  const int before = test::journaled_results(journal);
  ASSERT_LT(static_cast<std::size_t>(before), share.size()) << "the shard finished before it could be killed";
  EXPECT_FALSE(fs::exists(out)) << "the leaderboard is written at the end only";

  auto resumed_args = args;
  resumed_args.push_back("--resume");
  const auto resumed = test::run_cli(resumed_args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(test::statuses(out), share);
  EXPECT_EQ(test::journaled_results(journal), static_cast<int>(share.size()))
      << "nothing measured before the kill was measured again";
}

TEST_F(TwoPoclDevices, AResumeOnOtherDevicesIsRefusedNamingThem) {
  test::TempDir dir;
  const auto two = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "lb.json", {"--device", "opencl:all"}));
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto one =
      test::run_cli(test::sweep_args("tests/data/shards.json", dir / "lb.json", {"--device", "opencl:0:0", "--resume"}));
  EXPECT_EQ(one.exit_code, 2) << one.err;
  EXPECT_NE(one.err.find("devices"), std::string::npos) << one.err;
}

TEST(DevicePool, DevicesOfDifferentModelsFormSeparateGroups) {
  auto dev = [](std::string id, std::string name) {
    DeviceInfo d;
    d.id = std::move(id);
    d.name = std::move(name);
    return d;
  };
  const auto groups = group_by_model({dev("cuda:0", "NVIDIA H100 80GB HBM3"), dev("cuda:1", "NVIDIA H200"),
                                      dev("cuda:2", "NVIDIA H100 80GB HBM3"), dev("cuda:3", "NVIDIA H200")});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(groups[0].ids, (std::vector<std::string>{"cuda:0", "cuda:2"}));
  EXPECT_EQ(groups[1].ids, (std::vector<std::string>{"cuda:1", "cuda:3"}));
  EXPECT_EQ(model_path("results/fa.json", "NVIDIA H200"), "results/fa.nvidia-h200.json");
}

TEST_F(TwoPoclDevices, DeviceListsAreCheckedBeforeAnythingRuns) {
  test::TempDir dir;
  for (const char* bad : {"opencl:0:0,opencl:0:0", "cuda:all,opencl:0:0", "opencl:0:7", "opencl:0:0,opencl:0:1,"}) {
    const auto r = test::run_cli(test::sweep_args("tests/data/shards.json", dir / "x.json", {"--device", bad}));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
  }
  const auto r =
      test::run_cli(test::sweep_args("tests/data/shards.json", dir / "x.json", {"--device", "opencl:all", "--no-isolate"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("worker process"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

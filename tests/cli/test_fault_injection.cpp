// Faults a sweep must survive without losing a measured result, each on a real PoCL sweep: kill -9 (its worker
// must die with it), an output that cannot be written, a resume under another selection, and options that are
// no finite number.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::vector<std::string> sweep_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep",      "tests/data/resume.json", "--device", "opencl:0:0", "--out",
                                   out.string(), "--min-samples",          "3",        "--max-time", "0.05",
                                   "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int result_lines(const fs::path& journal) {
  std::ifstream in(journal);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += contains(line, "\"type\":\"result\"");
  return n;
}

bool alive(pid_t pid) {
  std::ifstream stat(fs::path("/proc") / std::to_string(pid) / "stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && line.substr(close + 2, 1) != "Z";
}

TEST(FaultInjection, AWorkerDiesWithItsSweepKilledWithSigkill) {
  test::TempDir dir;
  const fs::path out = dir / "killed.json";
  const pid_t sweep = test::start_cli(sweep_args(out));
  // Wait for its worker, and for a first result (the worker is then busy with the shape).
  std::vector<pid_t> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((workers.empty() || result_lines(out.string() + ".journal.jsonl") < 1) &&
         std::chrono::steady_clock::now() < deadline) {
    workers = test::worker_processes_of(sweep);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(workers.empty()) << "the sweep started no worker";
  ::kill(sweep, SIGKILL);
  int status = 0;
  ::waitpid(sweep, &status, 0);
  // The worker watches its parent every 100 ms; give it 5 s on a loaded machine.
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool any_alive = true;
  while (any_alive && std::chrono::steady_clock::now() < gone_by) {
    any_alive = false;
    for (pid_t w : workers) any_alive = any_alive || alive(w);
    if (any_alive) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (pid_t w : workers) {
    EXPECT_FALSE(alive(w)) << "worker " << w << " outlived its sweep";
    if (alive(w)) ::kill(w, SIGKILL);
  }
}

TEST(FaultInjection, ALeaderboardThatCannotBeWrittenLeavesTheJournalToResumeFrom) {
  test::TempDir dir;
  const fs::path out = dir / "board.json";
  const fs::path journal = out.string() + ".journal.jsonl";
  fs::create_directories(out);  // --out names a folder: the final write fails
  const auto failed = test::run_cli(sweep_args(out));
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_TRUE(contains(failed.err, "--resume")) << failed.err;
  const int measured = result_lines(journal);
  EXPECT_EQ(measured, 16) << "every configuration is journaled before the leaderboard is written";

  fs::remove_all(out);
  const auto resumed = test::run_cli(sweep_args(out, {"--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  ASSERT_TRUE(fs::is_regular_file(out));
  EXPECT_EQ(result_lines(journal), measured) << "the resume measured again what the journal held";
  const auto lb = nlohmann::json::parse(read_text_file(out));
  std::size_t entries = 0;
  for (const auto& g : lb.at("groups")) entries += g.at("entries").size();
  EXPECT_EQ(entries, 16u);
}

TEST(FaultInjection, AResumeUnderAnotherKernelSelectionOrStrategyIsRefused) {
  test::TempDir dir;
  const fs::path out = dir / "board.json";
  const pid_t pid = test::start_cli(sweep_args(out));
  const fs::path journal = out.string() + ".journal.jsonl";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (result_lines(journal) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_GE(result_lines(journal), 2);
  for (const std::vector<std::string>& other : {std::vector<std::string>{"--kernel", "naive"},
                                                std::vector<std::string>{"--strategy", "random", "--budget-evals", "4"}}) {
    std::vector<std::string> extra = other;
    extra.push_back("--resume");
    const auto r = test::run_cli(sweep_args(out, extra));
    EXPECT_EQ(r.exit_code, 2) << other[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "cannot resume")) << r.err;
  }
}

TEST(FaultInjection, TimingOptionsThatAreNoFiniteNumberAreUsageErrors) {
  const std::vector<std::vector<std::string>> cases = {{"--watchdog", "inf"},
                                                       {"--max-time", "nan"},
                                                       {"--max-noise", "inf"},
                                                       {"--warmup-time", "nan"},
                                                       {"--warmup-time", "-1"}};
  for (const auto& option : cases) {
    std::vector<std::string> args = {"sweep", "tests/data/testbed.json"};
    args.insert(args.end(), option.begin(), option.end());
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << option[0] << " " << option[1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, option[0])) << r.err;
  }
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

TEST(FaultInjection, ASourceEditedDuringTheSweepStopsItBeforeALeaderboardMixesTwoVersions) {
  test::TempDir dir;
  // The resume spec and its kernel, copied: the test edits the kernel.
  nlohmann::json spec = nlohmann::json::parse(read_text_file(test::data("resume.json")));
  spec["include_dirs"] = {(test::source_dir() / "kernels").string()};
  const fs::path spec_path = dir.write("spec.json", spec.dump());
  const fs::path kernel = dir.write("attention_testbed.cl", read_text_file(test::data("attention_testbed.cl")));
  const fs::path out = dir / "board.json";
  const fs::path journal = out.string() + ".journal.jsonl";

  std::vector<std::string> args = sweep_args(out);
  args[1] = spec_path.string();
  const pid_t pid = test::start_cli(args);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (result_lines(journal) < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(result_lines(journal), 1);
  { std::ofstream(kernel, std::ios::app) << "\n// edited while the sweep ran\n"; }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0) << "a sweep over an edited source must not succeed";
  EXPECT_FALSE(fs::exists(out)) << "no leaderboard puts the new hash on results of the old source";
  EXPECT_GE(result_lines(journal), 1) << "what was measured stays in the journal";

  // The message names the edit; a resume is refused, naming the hash, until it is undone.
  const auto resumed = test::run_cli([&] {
    auto a = sweep_args(out, {"--resume"});
    a[1] = spec_path.string();
    return a;
  }());
  EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "sources")) << resumed.err;
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

TEST(FaultInjection, SigtermStopsASweepWithinSecondsNotAtTheWatchdog) {
  test::TempDir dir;
  const fs::path out = dir / "board.json";
  // FAULT 4 never finishes: without a prompt stop the sweep would wait out the 120 s watchdog.
  const pid_t pid = test::start_cli({"sweep", "tests/data/faults.json", "--device", "opencl:0:0", "--out", out.string(),
                                     "--watchdog", "120", "--min-samples", "3", "--max-time", "0.05", "-q"});
  const fs::path journal = out.string() + ".journal.jsonl";
  // FAULT 0 runs first; once it is journaled, FAULT 4 is running.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (result_lines(journal) < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(result_lines(journal), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto sent = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_LT(took, 20.0) << "the sweep waited for the running configuration";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_EQ(result_lines(journal), 1) << "the interrupted configuration is not journaled as a result";
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// A small tmpfs as the output folder: the journal fills it midway.
class SmallDisk {
 public:
  explicit SmallDisk(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_);
    mounted_ = std::system(("mount -t tmpfs -o size=8k tmpfs " + dir_.string() + " 2>/dev/null").c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) (void)!std::system(("umount " + dir_.string()).c_str());
  }
  bool mounted() const { return mounted_; }
  bool grow() const { return std::system(("mount -o remount,size=4m " + dir_.string()).c_str()) == 0; }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

TEST(FaultInjection, AFullDiskStopsTheSweepAndAResumeAfterwardsMeasuresOnlyTheRest) {
  test::TempDir dir;
  const SmallDisk disk(dir / "disk");
  if (!disk.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): the full-disk case is not run";
  const fs::path out = dir / "disk" / "board.json";
  const fs::path journal = out.string() + ".journal.jsonl";
  const auto full = test::run_cli(sweep_args(out));
  EXPECT_NE(full.exit_code, 0);
  EXPECT_TRUE(contains(full.err, "No space left on device")) << full.err;
  EXPECT_TRUE(contains(full.err, "--resume")) << full.err;
  const int kept = result_lines(journal);
  ASSERT_LT(kept, 16) << "the disk did not fill: make it smaller";

  ASSERT_TRUE(disk.grow());
  const auto resumed = test::run_cli(sweep_args(out, {"--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(result_lines(journal), 16) << "what the full disk kept was not measured again, the rest was";
}

TEST(FaultInjection, ARowOfASweepWithShapeOverridesIsBenchedAgainByItsLabel) {
  test::TempDir dir;
  const fs::path out = dir / "board.json";
  const auto swept =
      test::run_cli({"sweep", "tests/data/testbed.json", "--device", "opencl:0:0", "--out", out.string(), "--shape",
                     "tiny,B=1,Nq=20", "--kernel", "naive", "--min-samples", "3", "--max-time", "0.05", "-q"});
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  const auto& group = lb.at("groups").at(0);
  const std::string label = group.at("shape");
  ASSERT_EQ(label, "tiny[B=1,Nq=20]");
  const std::string config = group.at("best").at("key");
  const auto benched = test::run_cli({"bench", "tests/data/testbed.json", "--device", "opencl:0:0", "-k", "naive", "-s",
                                      label, "--set", config, "--min-samples", "3", "--max-time", "0.05"});
  ASSERT_EQ(benched.exit_code, 0) << benched.err;
  EXPECT_TRUE(contains(benched.out, label)) << benched.out;
  EXPECT_TRUE(contains(benched.out, "median")) << benched.out;
}

TEST(FaultInjection, CompilerChatterStaysOffTheConsoleUnlessVerboseInAWorkerAndInProcess) {
  // PoCL's clang prints "1 warning generated." on stderr by itself for each optimized build of this kernel
  // (the suite's -cl-opt-disable builds print none, so it is off here). It belongs in the result's log: on
  // the console only with -v, whether the build ran in a worker (bench's and the sweep's default) or here.
  ::unsetenv("POCL_EXTRA_BUILD_FLAGS");
  ::setenv("POCL_KERNEL_CACHE", "0", 1);  // PoCL's own cache would skip clang, and its chatter with it
  const std::vector<std::string> args = {"bench",
                                         "configs/flash_attn_f32_f16_small.json",
                                         "--device",
                                         "opencl:0:0",
                                         "-k",
                                         "decode",
                                         "-s",
                                         "decode-256-d64",
                                         "--set",
                                         "DEC_WG_SIZE=32,DEC_DV_TILE=0",
                                         "--min-samples",
                                         "3",
                                         "--max-time",
                                         "0.02",
                                         "--no-cache"};
  const auto with = [&](std::vector<std::string> extra_front, std::vector<std::string> extra_back) {
    std::vector<std::string> a = std::move(extra_front);
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), extra_back.begin(), extra_back.end());
    const auto r = test::run_cli(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  const auto shown_here = with({"-v"}, {"--no-isolate"});
  ASSERT_TRUE(contains(shown_here.err, "warning generated")) << "the kernel no longer warns: pick one that does";
  EXPECT_FALSE(contains(with({}, {"--no-isolate"}).err, "warning generated")) << "in process, without -v";
  EXPECT_FALSE(contains(with({}, {}).err, "warning generated")) << "from a worker, without -v";
  EXPECT_TRUE(contains(with({"-v"}, {}).err, "warning generated")) << "with -v a worker's chatter is shown";
}

// The chatter a build printed is kept: it is part of the configuration's log, in the results.
TEST(FaultInjection, CompilerChatterIsKeptInTheResultsLog) {
  ::unsetenv("POCL_EXTRA_BUILD_FLAGS");
  ::setenv("POCL_KERNEL_CACHE", "0", 1);
  for (const bool isolate : {true, false}) {
    const auto r = test::run_cli({"bench", "configs/flash_attn_f32_f16_small.json", "--device", "opencl:0:0", "-k", "decode",
                                  "-s", "decode-256-d64", "--set", "DEC_WG_SIZE=32,DEC_DV_TILE=0", "--min-samples", "3",
                                  "--max-time", "0.02", "--no-cache", "--json", isolate ? "--watchdog=60" : "--no-isolate"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(contains(r.err, "warning generated")) << isolate << ": " << r.err;
    const std::string results = nlohmann::json::parse(r.out).dump();
    EXPECT_TRUE(contains(results, "warning generated")) << isolate << ": the results keep no build log: " << results;
  }
}

}  // namespace
}  // namespace attn

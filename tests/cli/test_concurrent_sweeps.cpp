// Two sweeps on one output would interleave their journals and time each
// other: the second one is refused, naming the first one's process.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> sweep_args(const fs::path& out) {
  return {"sweep",      "tests/data/resume.json", "--device", "opencl:0:0", "--out",
          out.string(), "--min-samples",          "4",        "--max-time", "0.15",
          "-q"};
}

bool journal_started(const fs::path& journal) {
  std::ifstream in(journal);
  std::string line;
  return std::getline(in, line) && line.find("\"type\":\"header\"") != std::string::npos;
}

// Starts a sweep into OUT and returns its process id once JOURNAL has its
// header (or after two minutes: the caller checks).
int start_sweep(const fs::path& out, const fs::path& journal) {
  const int pid = test::start_cli(sweep_args(out));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!journal_started(journal) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return pid;
}

TEST(ConcurrentSweeps, ASecondSweepOnTheSameOutputIsRefusedNamingTheFirst) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  const int first = start_sweep(out, journal);
  ASSERT_TRUE(journal_started(journal));

  const auto second = test::run_cli(sweep_args(out));
  int status = 0;
  const bool first_still_running = ::waitpid(first, &status, WNOHANG) == 0;
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find(fmt::format("another sweep (pid {}", first)), std::string::npos) << second.err;
  EXPECT_TRUE(first_still_running) << "the first sweep ended before the second started: make it longer";

  // The first sweep goes on undisturbed, and its lock goes with it.
  ::waitpid(first, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_FALSE(fs::exists(out.string() + ".lock"));
  std::ifstream in(journal);
  int results = 0, finished = 0;
  for (std::string line; std::getline(in, line);) {
    results += line.find("\"type\":\"result\"") != std::string::npos;
    finished += line.find("\"type\":\"finished\"") != std::string::npos;
  }
  EXPECT_EQ(results, 16);
  EXPECT_EQ(finished, 1);
}

TEST(ConcurrentSweeps, ALockLeftByAKilledSweepDoesNotBlockTheNext) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  const int first = start_sweep(out, journal);
  ::kill(first, SIGKILL);
  int status = 0;
  ::waitpid(first, &status, 0);
  EXPECT_TRUE(fs::exists(out.string() + ".lock")) << "kill -9 leaves the file; the kernel released the lock";
  auto args = sweep_args(out);
  args.push_back("--resume");
  const auto next = test::run_cli(args);
  EXPECT_EQ(next.exit_code, 0) << next.err;
}

}  // namespace
}  // namespace attn

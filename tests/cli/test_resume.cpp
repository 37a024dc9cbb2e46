// A sweep killed with SIGKILL midway and resumed yields the same set of
// results as one that was never interrupted.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTiming = {"--min-samples", "4", "--max-time", "0.15", "--max-noise", "0.01", "-q"};

std::vector<std::string> sweep_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep", "tests/data/resume.json", "--device", "opencl:0:0", "--out", out.string()};
  args.insert(args.end(), kTiming.begin(), kTiming.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int result_lines(const fs::path& journal) {
  std::ifstream in(journal);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find("\"type\":\"result\"") != std::string::npos;
  return n;
}

// key -> status over every group of a leaderboard
std::map<std::string, std::string> outcome(const fs::path& leaderboard) {
  const auto lb = nlohmann::json::parse(read_text_file(leaderboard));
  std::map<std::string, std::string> m;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) m[g.at("shape").get<std::string>() + "|" + e.at("key").get<std::string>()] = e.at("status");
  return m;
}

TEST(Resume, KilledSweepResumesToTheSameResults) {
  test::TempDir dir;
  const fs::path reference = dir / "reference.json", killed = dir / "killed.json";
  const auto full = test::run_cli(sweep_args(reference));
  ASSERT_EQ(full.exit_code, 0) << full.err;

  // Start the same sweep and SIGKILL it once a few results are journaled.
  const fs::path journal = fs::path(killed.string() + ".journal.jsonl");
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(test::source_dir().c_str()) != 0) ::_exit(126);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const auto args = sweep_args(killed);
    std::vector<char*> argv;
    const std::string exe = test::binary().string();
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (result_lines(journal) < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int measured_before_kill = result_lines(journal);
  ASSERT_GE(measured_before_kill, 4);
  ASSERT_LT(measured_before_kill, 16) << "the sweep finished before it could be killed: make it longer";
  EXPECT_FALSE(fs::exists(killed)) << "the leaderboard is written at the end only";

  // Without --resume an unfinished journal is not silently discarded.
  const auto refused = test::run_cli(sweep_args(killed));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--resume"), std::string::npos) << refused.err;

  const auto resumed = test::run_cli(sweep_args(killed, {"--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(outcome(killed), outcome(reference));
  EXPECT_EQ(outcome(killed).size(), 16u);
  // Nothing measured before the kill was measured again.
  EXPECT_EQ(result_lines(journal), 16);
}

}  // namespace
}  // namespace attn

// A space of 10^8 configurations is walked lazily: the first result comes at
// once, memory stays flat, the sweep says up front it will not finish, and
// Ctrl-C ends it with exit code 130 within a second.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// What the child wrote so far ("" before it opened the file).
std::string read_so_far(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Resident memory of PID in MiB, from /proc (0 when it is gone).
double resident_mib(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

TEST(HugeSpace, FirstResultAtOnceFlatMemoryAndCtrlCExits130) {
  test::TempDir dir;
  const fs::path err = dir / "stderr", out = dir / "lb.json";
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group, as a terminal's foreground job: Ctrl-C reaches the worker too
    if (::chdir(test::source_dir().c_str()) != 0) ::_exit(126);
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
    const std::string exe = test::binary().string();
    std::vector<std::string> args = {exe,          "sweep",         "tests/data/huge_space.json",
                                     "--device",   "opencl:0:0",    "--out",
                                     out.string(), "--min-samples", "2",
                                     "--max-time", "0.01"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);

  // The first result line within 5 s; the sweep's memory meanwhile.
  double peak_mib = 0, first_result_s = -1;
  while (Clock::now() - start < std::chrono::seconds(30)) {
    peak_mib = std::max(peak_mib, resident_mib(pid));
    if (contains(read_so_far(err), "[1/")) {
      first_result_s = std::chrono::duration<double>(Clock::now() - start).count();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Keep it running a little: memory must not grow with the space while it plans ahead.
  for (int i = 0; i < 50; ++i) {
    peak_mib = std::max(peak_mib, resident_mib(pid));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  ::kill(-pid, SIGINT);
  const auto interrupted = Clock::now();
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && Clock::now() - interrupted < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double exit_s = std::chrono::duration<double>(Clock::now() - interrupted).count();
  if (done == 0) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const std::string log = read_so_far(err);

  ASSERT_GE(first_result_s, 0) << "no result within 30 s:\n" << log;
  EXPECT_LT(first_result_s, 5.0) << log;
  EXPECT_LT(peak_mib, 200.0);
  EXPECT_LT(exit_s, 1.0) << log;
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal instead of exiting: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 130) << log;
  EXPECT_TRUE(contains(log, "the space holds about 100000000 configurations")) << log;
  EXPECT_TRUE(contains(log, "--strategy")) << log;
  EXPECT_TRUE(fs::exists(out)) << "the leaderboard of what ran is written on Ctrl-C";
}

}  // namespace
}  // namespace attn

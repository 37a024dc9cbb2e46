#include "tests/support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "tuner/core/text_file.hpp"

namespace attn::test {

namespace fs = std::filesystem;

namespace {
// The tests measure. Their sweeps share the default compile cache, and the measurement store beside it would
// answer one test's sweep from another's; the store's own tests turn it on for a cache folder of their own.
// Set here, in every test process, so that the attn-tune processes the tests start inherit it. (A second variable
// in ctest's ENVIRONMENT, a list, is split off by gtest_discover_tests.)
const bool g_store_off = [] { return ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "0", 0) == 0; }();
}  // namespace

fs::path source_dir() { return ATTN_TUNE_SOURCE_DIR; }
fs::path binary() { return ATTN_TUNE_BINARY; }
fs::path data(const std::string& name) { return source_dir() / "tests" / "data" / name; }

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("attn-tune-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path TempDir::write(const std::string& name, const std::string& text) const {
  const fs::path p = path_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

namespace {

// In a forked child: becomes PROGRAM with ARGS, found on PATH when it names no directory (exit code
// 127 when it cannot).
[[noreturn]] void exec_program(const std::string& program, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(program.c_str(), argv.data());
  ::_exit(127);
}

[[noreturn]] void exec_cli(const std::vector<std::string>& args) { exec_program(binary().string(), args); }

}  // namespace

CommandResult run_cli(const std::vector<std::string>& args) { return run_program(binary().string(), args); }

CommandResult run_program(const std::string& program, const std::vector<std::string>& args) {
  TempDir io;
  const fs::path out = io / "stdout", err = io / "stderr";
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(source_dir().c_str()) != 0) ::_exit(126);
    std::FILE* o = std::freopen(out.c_str(), "w", stdout);
    std::FILE* e = std::freopen(err.c_str(), "w", stderr);
    if (!o || !e) ::_exit(126);
    exec_program(program, args);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text_file(out);
  r.err = read_text_file(err);
  return r;
}

int start_cli(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(source_dir().c_str()) != 0) ::_exit(126);
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) ::_exit(126);
    exec_cli(args);
  }
  return pid;
}

std::vector<int> worker_processes_of(int parent) {
  std::vector<int> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream cmd(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    if (cmdline.find(std::string("worker") + '\0') != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

}  // namespace attn::test

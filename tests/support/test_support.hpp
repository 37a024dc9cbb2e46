// Shared by attn-tune's tests: scratch directories and running the CLI.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attn::test {

std::filesystem::path source_dir();                   // the repository root
std::filesystem::path binary();                       // the attn-tune executable under test
std::filesystem::path data(const std::string& name);  // tests/data/NAME

// A fresh directory under the system temp dir, removed when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Writes TEXT to NAME inside the directory and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs attn-tune with ARGS (no shell), from the repository root, and waits.
CommandResult run_cli(const std::vector<std::string>& args);

// Runs PROGRAM (looked up on PATH when it names no directory) with ARGS the same way: for the
// repository's scripts whose output a test checks.
CommandResult run_program(const std::string& program, const std::vector<std::string>& args);

// Starts attn-tune with ARGS from the repository root without waiting (its
// output goes to /dev/null) and returns its process id: for tests of
// processes that run at the same time or get killed.
int start_cli(const std::vector<std::string>& args);

// The `attn-tune worker` processes whose parent is PARENT, from /proc.
std::vector<int> worker_processes_of(int parent);

}  // namespace attn::test

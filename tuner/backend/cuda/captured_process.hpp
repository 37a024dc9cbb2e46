// A toolkit program (nvcc) run to completion with its output kept: no shell,
// the arguments as given, stdout and stderr together in the order printed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attn {

struct CapturedProcess {
  int exit_code = -1;  // the program's exit status; 128 + N when signal N ended it
  std::string output;  // stdout and stderr, interleaved
};

// Runs PROGRAM with ARGS. Throws BackendError when it cannot be started.
CapturedProcess run_captured(const std::filesystem::path& program, const std::vector<std::string>& args);

}  // namespace attn

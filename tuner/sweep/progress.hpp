// The sweep's progress on stderr: a redrawn status line on a terminal, plain
// lines otherwise (CI logs, pipes).
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "tuner/record/result.hpp"

namespace attn {

class Progress {
 public:
  // INTERACTIVE: redraw one line; otherwise print one line per result. QUIET: print nothing.
  Progress(std::FILE* out, bool interactive, bool quiet);
  static Progress for_stderr(bool quiet);

  // TOTAL is an estimate when not EXACT (a space too large to count).
  void begin(long long total, long long already_done, bool exact = true);
  // A line of its own (between results), unless quiet.
  void note(const std::string& line);
  void starting(const Job& job);
  void finished(const ConfigResult& result);
  void end();

 private:
  void draw(const std::string& now);
  std::FILE* out_;
  bool interactive_, quiet_;
  long long total_ = 0, done_ = 0, measured_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::optional<double> best_ms_;
  std::string best_label_;
};

}  // namespace attn

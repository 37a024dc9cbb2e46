// What a library prints on the process's stderr by itself, around our own log lines. PoCL's compiler writes
// "1 warning generated." once per build straight to file descriptor 2; on the console that is noise, in a
// result's log it is evidence. A worker's stderr is sorted by its parent (runners/subprocess.cpp); an
// in-process build captures its own (StderrCapture).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace attn {

// Our own lines: spdlog's "[time] [level] ..." and "attn-tune: ...". Anything else is a library's chatter.
inline bool is_own_log_line(std::string_view line) { return line.starts_with('[') || line.starts_with("attn-tune"); }

// While alive, file descriptor 2 goes to a temporary file; captures in several threads take turns, since
// descriptor 2 is the process's. release() restores it, writes our own log lines
// (and, at debug verbosity, everything) to the console, and returns the chatter for the result's log.
class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  std::string release();

 private:
  std::unique_lock<std::mutex> turn_;
  int saved_ = -1;    // the console's descriptor while captured
  int capture_ = -1;  // the temporary file
};

}  // namespace attn

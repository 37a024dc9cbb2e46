// A child process spoken to in lines: requests on its stdin, replies on its
// file descriptor 3 (so that a kernel's printf on stdout cannot corrupt them),
// its stderr kept as a tail for the record when it dies.
//
// Written on POSIX directly: no Debian-packaged C++ library does this with a
// read timeout (Boost.Process v1's wait_for is unreliable).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace attn {

class Subprocess {
 public:
  // Starts ARGV[0] with ARGV; the child's stdout goes to this process's stderr.
  explicit Subprocess(const std::vector<std::string>& argv);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // False when the child is gone (the write hit a closed pipe).
  bool write_line(const std::string& line);

  enum class Read { line, timeout, closed, interrupted };
  // Waits up to TIMEOUT_S for a full line on fd 3; drains stderr meanwhile. Returns `interrupted` within
  // 100 ms of a stop asked of this process (core/interrupt.hpp).
  Read read_line(std::string& line, double timeout_s);

  // SIGKILL and reap; idempotent.
  void kill();
  // Reaps the child if it has exited (waiting up to WAIT_S) and describes how:
  // "exited with code 3", "killed by signal 11 (Segmentation fault)".
  std::string exit_description(double wait_s = 2.0);
  std::string stderr_tail() const { return stderr_tail_; }
  pid_t pid() const { return pid_; }

 private:
  void drain_stderr();
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1, err_from_child_ = -1;
  std::string pending_;
  std::string stderr_tail_;
  std::string unshown_;  // the child's output since its last newline
  void pass_through(std::string_view bytes);
  int wait_status_ = 0;
  bool reaped_ = false;
};

}  // namespace attn

#include "tuner/runners/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/core/console_chatter.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/interrupt.hpp"

extern char** environ;

namespace attn {
namespace {

constexpr std::size_t kStderrTail = 16 * 1024;

void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("pipe2 failed: {}", std::strerror(errno)));
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv) {
  // A dead child must surface as a failed write, not kill this process.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  make_pipe(in);
  make_pipe(out);
  make_pipe(err);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, err[1], 1);  // the child's stdout: with its stderr
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_adddup2(&actions, out[1], 3);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  err_from_child_ = err[0];
  if (rc != 0) {
    pid_ = -1;
    throw Error(fmt::format("cannot start {}: {}", argv.at(0), std::strerror(rc)));
  }
}

Subprocess::~Subprocess() {
  kill();
  for (int fd : {to_child_, from_child_, err_from_child_})
    if (fd >= 0) ::close(fd);
}

bool Subprocess::write_line(const std::string& line) {
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(to_child_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// The child's own log lines (spdlog's "[time] [level] ...", "attn-tune: ...") reach the console. Whatever else
// it prints, a compiler's chatter ("1 warning generated.", once per PoCL build) among it, is kept in the tail
// (and the program's build log) and shown only with -v.
void Subprocess::pass_through(std::string_view bytes) {
  unshown_ += bytes;
  const bool verbose = spdlog::should_log(spdlog::level::debug);
  for (std::size_t nl; (nl = unshown_.find('\n')) != std::string::npos;) {
    const std::string_view line(unshown_.data(), nl + 1);
    if (verbose || is_own_log_line(line)) (void)!::write(2, line.data(), line.size());
    unshown_.erase(0, nl + 1);
  }
  if (unshown_.size() > kStderrTail) unshown_.clear();  // no newline in sight: not a log line
}

void Subprocess::drain_stderr() {
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(err_from_child_, buf, sizeof buf);
    if (n <= 0) return;
    stderr_tail_.append(buf, static_cast<std::size_t>(n));
    if (stderr_tail_.size() > kStderrTail) stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
    pass_through(std::string_view(buf, static_cast<std::size_t>(n)));
    if (n < static_cast<ssize_t>(sizeof buf)) return;
  }
}

Subprocess::Read Subprocess::read_line(std::string& line, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool out_open = true;
  while (true) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Read::line;
    }
    if (!out_open) return Read::closed;
    if (interrupt_requested()) return Read::interrupted;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Read::timeout;
    pollfd fds[2] = {{from_child_, POLLIN, 0}, {err_from_child_, POLLIN, 0}};
    const int rc = ::poll(fds, err_from_child_ >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left.count(), 100)));
    if (rc < 0) {
      if (errno == EINTR) continue;  // the signal handler ran: interrupt_requested() says whether to stop
      throw Error(fmt::format("poll failed: {}", std::strerror(errno)));
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      const std::size_t before = stderr_tail_.size();
      drain_stderr();
      if ((fds[1].revents & POLLHUP) && stderr_tail_.size() == before) {
        ::close(err_from_child_);
        err_from_child_ = -1;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      char buf[65536];
      const ssize_t n = ::read(from_child_, buf, sizeof buf);
      if (n > 0) pending_.append(buf, static_cast<std::size_t>(n));
      else if (n == 0) out_open = false;
    }
  }
}

void Subprocess::kill() {
  if (pid_ <= 0 || reaped_) return;
  ::kill(pid_, SIGKILL);
  if (::waitpid(pid_, &wait_status_, 0) == pid_) reaped_ = true;
}

std::string Subprocess::exit_description(double wait_s) {
  if (pid_ <= 0) return "never started";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (!reaped_) {
    const pid_t r = ::waitpid(pid_, &wait_status_, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return "still running";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(wait_status_)) return fmt::format("exited with code {}", WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_))
    return fmt::format("killed by signal {} ({})", WTERMSIG(wait_status_), ::strsignal(WTERMSIG(wait_status_)));
  return "ended";
}

}  // namespace attn

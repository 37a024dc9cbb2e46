#include "tuner/record/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

// The process id the holder wrote into the lock file; it writes it just after
// taking the lock, so wait a moment for it.
std::string holder_pid(int fd) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0 && buf[n - 1] == '\n') return std::string(buf, static_cast<std::size_t>(n - 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return "unknown";
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& leaderboard) : path_(leaderboard.string() + ".lock") {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(fmt::format("cannot open {}: {}", path_.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string pid = error == EWOULDBLOCK ? holder_pid(fd_) : "";
      ::close(fd_);
      fd_ = -1;
      if (error != EWOULDBLOCK) throw Error(fmt::format("cannot lock {}: {}", path_.string(), std::strerror(error)));
      throw UsageError(
          fmt::format("{} is being written by another sweep (pid {}, lock {}): wait for it to finish, or "
                      "write elsewhere with --out",
                      leaderboard.string(), pid, path_.string()));
    }
    // The previous holder removes the file when it is done: if it did so between
    // our open and flock, we locked a file nobody else will see. Take the new one.
    struct stat held {
    }, now{};
    if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::unlink(path_.c_str());
    ::close(fd_);
    throw Error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(error)));
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still holding it: see the constructor
  ::close(fd_);
}

}  // namespace attn

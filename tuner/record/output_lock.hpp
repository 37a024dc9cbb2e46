// One sweep at a time per leaderboard: an exclusive flock on "<leaderboard>.lock",
// held while the sweep writes the leaderboard and its journal. The kernel drops
// the lock when its holder dies, even by kill -9, so a stale file never blocks.
#pragma once

#include <filesystem>

namespace attn {

class OutputLock {
 public:
  // Throws UsageError naming the other sweep's process id when it holds the lock.
  explicit OutputLock(const std::filesystem::path& leaderboard);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace attn

#include "tuner/cache/eviction.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <system_error>
#include <vector>

namespace attn {
namespace {

namespace fs = std::filesystem;

struct Found {
  fs::path path;
  std::uint64_t bytes = 0;
  timespec used{};
};

bool older(const timespec& a, const timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

}  // namespace

bool mark_used(const fs::path& path) {
  const timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  return utimensat(AT_FDCWD, path.c_str(), times, 0) == 0;
}

Eviction evict_least_recently_used(const fs::path& dir, std::uint64_t max_bytes) {
  Eviction out;
  std::vector<Found> entries;
  std::uint64_t total = 0;
  const std::time_t stale = std::time(nullptr) - 3600;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".tmp") {
      std::error_code ignore;
      if (st.st_mtim.tv_sec < stale) fs::remove(it->path(), ignore);
      continue;
    }
    if (ext != ".entry") continue;
    entries.push_back({it->path(), static_cast<std::uint64_t>(st.st_size), st.st_atim});
    total += static_cast<std::uint64_t>(st.st_size);
  }
  std::sort(entries.begin(), entries.end(), [](const Found& a, const Found& b) {
    if (older(a.used, b.used) || older(b.used, a.used)) return older(a.used, b.used);
    return a.path < b.path;
  });
  for (const Found& f : entries) {
    if (total <= max_bytes) break;
    std::error_code gone;
    if (fs::remove(f.path, gone)) ++out.removed;
    total -= f.bytes;  // removed here or by another process: either way no longer counted
  }
  out.bytes_kept = total;
  return out;
}

}  // namespace attn

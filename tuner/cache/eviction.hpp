// Keeps the cache under its size bound: the entries used longest ago go first.
// "Used" is the file's access time, which a hit sets explicitly (so noatime
// mounts work too).
#pragma once

#include <cstdint>
#include <filesystem>

namespace attn {

// Sets PATH's access time to now (its modification time stays). False when it is gone.
bool mark_used(const std::filesystem::path& path);

struct Eviction {
  std::size_t removed = 0;
  std::uint64_t bytes_kept = 0;
};

// Removes *.entry files under DIR, least recently used first, until the rest
// take at most MAX_BYTES; also temporary files left by a killed writer over an
// hour ago. Entries another process removes meanwhile are skipped.
Eviction evict_least_recently_used(const std::filesystem::path& dir, std::uint64_t max_bytes);

}  // namespace attn

// The on-disk compile cache: one file per key under <dir>/v1/<2 hex>/<key>.entry.
// Writers write a temporary file and rename it over the entry, so a reader (in
// this process or another sweep's) sees a whole entry or none. A corrupted
// entry is reported at debug level, removed, and counts as a miss.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "tuner/cache/cache_entry.hpp"
#include "tuner/cache/cache_settings.hpp"

namespace attn {

class CacheStore {
 public:
  CacheStore(std::filesystem::path dir, std::uint64_t max_bytes);

  // The entry under KEY, marked used; nullopt when there is none or it is corrupted.
  std::optional<CacheEntry> load(const std::string& key) const;

  // Stores ENTRY under KEY, then evicts down to the bound. Never throws: a cache
  // that cannot be written only costs time (said once at warning level).
  void save(const std::string& key, const CacheEntry& entry);

  std::filesystem::path entry_path(const std::string& key) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;  // <root>/v1
  std::uint64_t max_bytes_;
  std::mutex evicting_;
  bool warned_ = false;
};

// The process's cache, as configure_compile_cache set it: null when off (the
// default until configured, and with --no-cache). Backends' compile paths use it.
CacheStore* compile_cache_store();
void configure_compile_cache(const CompileCacheSettings& settings);

}  // namespace attn

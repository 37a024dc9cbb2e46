#include "tuner/cache/cache_store.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/cache/eviction.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

}  // namespace

CacheStore::CacheStore(fs::path dir, std::uint64_t max_bytes) : dir_(std::move(dir) / "v1"), max_bytes_(max_bytes) {}

fs::path CacheStore::entry_path(const std::string& key) const { return dir_ / key.substr(0, 2) / (key + ".entry"); }

std::optional<CacheEntry> CacheStore::load(const std::string& key) const {
  const fs::path path = entry_path(key);
  const auto bytes = read_bytes(path);
  if (!bytes) return std::nullopt;
  std::string why;
  auto entry = parse_entry(*bytes, why);
  if (!entry) {
    spdlog::debug("compile cache: {} is corrupted ({}): compiling again", path.string(), why);
    std::error_code ignore;
    fs::remove(path, ignore);
    return std::nullopt;
  }
  mark_used(path);
  return entry;
}

void CacheStore::save(const std::string& key, const CacheEntry& entry) {
  static std::atomic<unsigned> serial{0};
  const fs::path path = entry_path(key);
  const fs::path tmp = path.parent_path() / fmt::format("{}.{}.{}.tmp", key, getpid(), serial++);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  bool written = !ec;
  if (written) {
    const std::string bytes = serialize_entry(entry);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    written = static_cast<bool>(out);
    if (written) fs::rename(tmp, path, ec);  // atomic: replaces an entry another sweep wrote meanwhile
    if (!written || ec) {
      written = false;
      fs::remove(tmp, ec);
    }
  }
  if (!written) {
    std::lock_guard lock(evicting_);
    if (!warned_) spdlog::warn("compile cache: cannot write under {}: compiling without it", dir_.string());
    warned_ = true;
    return;
  }
  std::lock_guard lock(evicting_);
  const Eviction ev = evict_least_recently_used(dir_, max_bytes_);
  if (ev.removed)
    spdlog::debug("compile cache: evicted {} entries, {} bytes kept (bound {})", ev.removed, ev.bytes_kept, max_bytes_);
}

namespace {
std::unique_ptr<CacheStore>& process_store() {
  static std::unique_ptr<CacheStore> store;
  return store;
}
}  // namespace

CacheStore* compile_cache_store() { return process_store().get(); }

void configure_compile_cache(const CompileCacheSettings& settings) {
  const fs::path dir = settings.resolved_dir();
  if (!settings.enabled || dir.empty()) {
    process_store().reset();
    return;
  }
  process_store() = std::make_unique<CacheStore>(dir, settings.max_mb * 1024 * 1024);
}

}  // namespace attn

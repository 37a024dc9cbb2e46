#include "tuner/cache/reference_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include <spdlog/spdlog.h>

#include "tuner/cache/eviction.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

// "attn-tune.reference/1\n", the value count (8 bytes), the doubles, then the hex SHA-256 of all before it.
constexpr std::string_view kMagic = "attn-tune.reference/1\n";
constexpr std::size_t kDigestChars = 64;

bool turned_off() {
  const char* v = std::getenv("ATTN_TUNE_REFERENCE_STORE");
  return v && (std::string_view(v) == "0" || std::string_view(v) == "off");
}

std::string encode(const std::vector<double>& values) {
  std::string bytes(kMagic);
  const std::uint64_t count = values.size();
  bytes.append(reinterpret_cast<const char*>(&count), sizeof count);
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return bytes + sha256_hex(bytes);
}

std::optional<std::vector<double>> decode(std::string_view bytes) {
  const std::size_t head = kMagic.size() + sizeof(std::uint64_t);
  if (bytes.size() < head + kDigestChars || bytes.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  std::uint64_t count = 0;
  std::memcpy(&count, bytes.data() + kMagic.size(), sizeof count);
  if (bytes.size() != head + count * sizeof(double) + kDigestChars) return std::nullopt;
  const std::string_view body = bytes.substr(0, bytes.size() - kDigestChars);
  if (sha256_hex(body) != bytes.substr(body.size())) return std::nullopt;
  std::vector<double> values(count);
  std::memcpy(values.data(), bytes.data() + head, count * sizeof(double));
  return values;
}

// An exclusive flock held for the object's life; no lock (and no wait) when the file cannot be opened.
class KeyLock {
 public:
  explicit KeyLock(const std::filesystem::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~KeyLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;

 private:
  int fd_;
};

}  // namespace

ReferenceStore::ReferenceStore(std::filesystem::path dir, std::uint64_t max_bytes) : max_bytes_(max_bytes) {
  if (dir.empty() || turned_off()) return;
  dir_ = dir / "references";
}

std::filesystem::path ReferenceStore::entry_path(const std::string& key) const { return dir_ / (key + ".entry"); }

std::optional<std::vector<double>> ReferenceStore::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  const std::filesystem::path path = entry_path(key);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::optional<std::vector<double>> values;
  try {
    values = decode(read_text_file(path));
  } catch (const std::exception&) {
    return std::nullopt;  // gone meanwhile (evicted), or unreadable: computed again
  }
  if (!values) {
    spdlog::debug("reference store: {} is damaged; computing the reference again", path.string());
    std::filesystem::remove(path, ec);
    return std::nullopt;
  }
  mark_used(path);
  return values;
}

void ReferenceStore::save(const std::string& key, const std::vector<double>& values) const {
  if (!enabled()) return;
  try {
    std::filesystem::create_directories(dir_);
    write_file_atomically(entry_path(key), encode(values));
    evict_least_recently_used(dir_, max_bytes_);
  } catch (const std::exception& e) {
    spdlog::debug("reference store: not kept ({})", e.what());
  }
}

std::vector<double> ReferenceStore::load_or_compute(const std::string& key,
                                                    const std::function<std::vector<double>()>& compute) const {
  if (!enabled()) return compute();
  if (auto values = load(key)) return std::move(*values);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const KeyLock lock(dir_ / (key + ".lock"));
  if (auto values = load(key)) return std::move(*values);  // another process computed it while we waited
  std::vector<double> values = compute();
  save(key, values);
  return values;
}

}  // namespace attn

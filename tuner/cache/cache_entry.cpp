#include "tuner/cache/cache_entry.hpp"

#include <charconv>

#include "tuner/core/sha256.hpp"

namespace attn {
namespace {

constexpr std::string_view kMagic = "attn-tune-cache 1\n";
constexpr std::size_t kDigestHex = 64;

}  // namespace

std::string serialize_entry(const CacheEntry& e) {
  const nlohmann::json header = {{"ok", e.ok},
                                 {"message", e.message},
                                 {"log", e.log},
                                 {"details", e.details},
                                 {"image_bytes", e.image.size()}};
  const std::string head = header.dump();
  std::string body = std::to_string(head.size()) + "\n" + head;
  body.append(e.image.data(), e.image.size());
  return std::string(kMagic) + sha256_hex(body) + "\n" + body;
}

std::optional<CacheEntry> parse_entry(std::string_view bytes, std::string& why) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    why = "not a cache entry of this version";
    return std::nullopt;
  }
  bytes.remove_prefix(kMagic.size());
  if (bytes.size() < kDigestHex + 1 || bytes[kDigestHex] != '\n') {
    why = "truncated before its checksum";
    return std::nullopt;
  }
  const std::string_view digest = bytes.substr(0, kDigestHex);
  const std::string_view body = bytes.substr(kDigestHex + 1);
  if (sha256_hex(body) != digest) {
    why = "its checksum does not match its contents";
    return std::nullopt;
  }
  const std::size_t nl = body.find('\n');
  std::size_t head_size = 0;
  if (nl == std::string_view::npos || std::from_chars(body.data(), body.data() + nl, head_size).ec != std::errc{} ||
      nl + 1 + head_size > body.size()) {
    why = "its header length is unreadable";
    return std::nullopt;
  }
  const auto header = nlohmann::json::parse(body.substr(nl + 1, head_size), nullptr, /*allow_exceptions=*/false);
  const std::string_view image = body.substr(nl + 1 + head_size);
  if (header.is_discarded() || !header.is_object() || header.value("image_bytes", std::size_t{0}) != image.size()) {
    why = "its header is not the one written with it";
    return std::nullopt;
  }
  CacheEntry e;
  e.ok = header.value("ok", false);
  e.message = header.value("message", "");
  e.log = header.value("log", "");
  e.details = header.value("details", nlohmann::json::object());
  e.image.assign(image.begin(), image.end());
  return e;
}

}  // namespace attn

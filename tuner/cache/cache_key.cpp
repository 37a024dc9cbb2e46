#include "tuner/cache/cache_key.hpp"

#include "tuner/core/sha256.hpp"

namespace attn {

std::string cache_key(const CacheKeyParts& p) {
  // One field per line, each with a tag: no two different part lists give the same text.
  std::string text = "attn-tune compile cache key 1\n";
  auto line = [&](const char* tag, const std::string& value) {
    text += tag;
    text += ' ';
    text += std::to_string(value.size());
    text += ':';
    text += value;
    text += '\n';
  };
  line("backend", p.backend);
  line("compiler", p.compiler);
  line("target", p.target);
  line("source", p.source_sha256);
  for (const auto& [path, sha] : p.included) {
    line("include", path);
    line("include-sha256", sha);
  }
  for (const auto& o : p.options) line("option", o);
  for (const auto& e : p.entries) line("entry", e);
  return sha256_hex(text);
}

}  // namespace attn

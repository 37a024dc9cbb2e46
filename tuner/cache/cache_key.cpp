#include "tuner/cache/cache_key.hpp"

#include "tuner/core/included_files.hpp"
#include "tuner/core/sha256.hpp"

namespace attn {

bool key_source(CacheKeyParts& parts, const std::string& text, const std::filesystem::path& source_path,
                const std::vector<std::filesystem::path>& include_dirs) {
  parts.source_sha256 = sha256_hex(text);
  const IncludedFiles included = included_files(text, source_path, include_dirs);
  parts.included.clear();
  for (const SourceFile& f : included.files) parts.included.emplace_back(f.path.string(), f.sha256);
  return included.missing.empty();
}

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

// The files a kernel source includes, found as the compiler finds them, with
// their SHA-256: a changed header must change the cache key.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attn {

struct IncludedFiles {
  std::vector<std::pair<std::string, std::string>> files;  // (path, sha256), each once, in the order first met
  // false when a "quoted" include was found nowhere: the compiler will fail, and
  // that failure must not be cached (creating the file would not change the key).
  bool complete = true;
};

// Follows every #include of SOURCE (also those under #if: hashing one too many
// is harmless), "quoted" ones first relative to the including file's folder,
// then, like <angled> ones, in INCLUDE_DIRS in order. <angled> includes found
// nowhere (the toolkit's cuda_fp16.h) are left to the compiler's version.
IncludedFiles included_files(const std::string& source, const std::filesystem::path& source_path,
                             const std::vector<std::filesystem::path>& include_dirs);

}  // namespace attn

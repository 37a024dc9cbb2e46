// The name of a compiled kernel in the cache: everything that can change what
// the compiler produces, hashed. Two requests with the same key compile to the
// same binary (or fail the same way).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attn {

struct CacheKeyParts {
  std::string backend;   // "nvrtc", "opencl"
  std::string compiler;  // the compiler's and driver's versions
  std::string target;    // architecture (sm_90a) or device name
  std::string source_sha256;
  std::vector<std::pair<std::string, std::string>> included;  // (path, sha256) of every included file
  std::vector<std::string> options;                           // as given to the compiler, -D values included
  std::vector<std::string> entries;                           // kernels looked up in the result
};

// Sets PARTS' source_sha256 from TEXT, the source as the compiler gets it, and
// included from the files it includes (included_files, from SOURCE_PATH and
// INCLUDE_DIRS). Returns false when a "quoted" include was found nowhere: the
// compile will fail, and that failure must not be cached (creating the file
// would not change the key).
bool key_source(CacheKeyParts& parts, const std::string& text, const std::filesystem::path& source_path,
                const std::vector<std::filesystem::path>& include_dirs);

// SHA-256 (hex) of a canonical text of PARTS.
std::string cache_key(const CacheKeyParts& parts);

}  // namespace attn

// The name of a compiled kernel in the cache: everything that can change what
// the compiler produces, hashed. Two requests with the same key compile to the
// same binary (or fail the same way).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace attn {

struct CacheKeyParts {
  std::string backend;    // "nvrtc", "opencl"
  std::string compiler;   // the compiler's and driver's versions
  std::string target;     // architecture (sm_90a) or device name
  std::string source_sha256;
  std::vector<std::pair<std::string, std::string>> included;  // (path, sha256) of every included file
  std::vector<std::string> options;                           // as given to the compiler, -D values included
  std::vector<std::string> entries;                           // kernels looked up in the result
};

// SHA-256 (hex) of a canonical text of PARTS.
std::string cache_key(const CacheKeyParts& parts);

}  // namespace attn

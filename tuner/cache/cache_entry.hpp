// One cached compilation, as bytes on disk: the binary, or the failure, with
// the compiler's log and what the backend needs to report it as a fresh
// compile would. A SHA-256 of the contents detects a corrupted entry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"

namespace attn {

// A compile failure read from the cache: the same message and log as when it was compiled.
class CachedCompileError : public CompileError {
 public:
  using CompileError::CompileError;
};

struct CacheEntry {
  bool ok = true;                                     // false: the compiler rejected the source
  std::string message;                                // the failure's one-line reason
  std::string log;                                    // the compiler's log (ptxas' resource report included)
  nlohmann::json details = nlohmann::json::object();  // backend-specific: target, options, compile time
  std::vector<char> image;                            // the binary (CUBIN, PTX, OpenCL program binary); empty for failures
};

// Layout: "attn-tune-cache 1\n" <sha256 of the rest, hex> "\n" <header length> "\n" <header JSON> <image>.
std::string serialize_entry(const CacheEntry& entry);

// The entry, or nullopt with WHY set when the bytes are not a whole, intact entry.
std::optional<CacheEntry> parse_entry(std::string_view bytes, std::string& why);

}  // namespace attn

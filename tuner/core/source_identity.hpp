// What a kernel's results depend on in its source tree: the source file and
// every file it includes, so that a changed header reads as a changed kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attn {

struct SourceFile {
  std::filesystem::path path;  // as found: the source as given, an include as dir / name (lexically normal)
  std::string sha256;          // of the file's bytes
};

struct SourceIdentity {
  std::string sha256;              // of the files' sha256 values in order: the source's identity
  std::vector<SourceFile> files;   // the source first, then each included file once, in include order
};

// Follows every #include "name" (recursively, each file once) as the compilers
// do: relative to the including file's directory, then in include_dirs in
// order. Includes under #if are followed whatever the condition (the file is
// part of the source either way); <system> includes and quoted names found
// nowhere are left out (the compiler reports those). Throws Error when the
// source cannot be read.
SourceIdentity source_identity(const std::filesystem::path& source,
                               const std::vector<std::filesystem::path>& include_dirs);

}  // namespace attn

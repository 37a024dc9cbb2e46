// What a kernel's results depend on in its source tree: the source file and
// every file it includes, so that a changed header reads as a changed kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tuner/core/included_files.hpp"

namespace attn {

struct SourceIdentity {
  std::string sha256;             // of the files' sha256 values in order: the source's identity
  std::vector<SourceFile> files;  // the source first, then each included file once, in include order
};

// The source and the files it includes, found by included_files (quoted names
// found nowhere are left out: the compiler reports those). Throws Error when
// the source cannot be read.
SourceIdentity source_identity(const std::filesystem::path& source, const std::vector<std::filesystem::path>& include_dirs);

}  // namespace attn

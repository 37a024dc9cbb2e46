// The files a source includes, found as the compiler finds them, with their
// SHA-256: what both the compile cache's key and a kernel's source identity
// are made of, so that a changed header reads as a changed kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

struct SourceFile {
  std::filesystem::path path;  // as found: the source as given, an include as dir / name (lexically normal)
  std::string sha256;          // of the file's bytes
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceFile, path, sha256)

struct IncludedFiles {
  std::vector<SourceFile> files;     // each once, in the order the preprocessor first opens them
  std::vector<std::string> missing;  // "quoted" names found nowhere: the compiler will fail on them
};

// Follows every #include of TEXT, the source as the compiler gets it, located
// at SOURCE_PATH (which need not exist): "quoted" ones first relative to the
// including file's folder, then, like <angled> ones, in INCLUDE_DIRS in order;
// recursively, each file once (cycles end), the source itself never listed.
// Includes under #if are followed whatever the condition (the file is part of
// the source either way); <angled> names found nowhere (the toolkit's
// cuda_fp16.h) are the compiler's own. Throws Error when a found file cannot be read.
IncludedFiles included_files(const std::string& text, const std::filesystem::path& source_path,
                             const std::vector<std::filesystem::path>& include_dirs);

}  // namespace attn

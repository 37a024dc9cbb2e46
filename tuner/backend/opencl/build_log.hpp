// OpenCL compilers build from a string, so their logs name a file of their own
// (PoCL: a temporary in its kernel cache, `.../kcache/tempfile_nSU7aQ.cl`;
// others: `<kernel>`, `<source>`, `input.cl`). Diagnostics are only useful with
// the user's path, so those names are replaced by it.
#pragma once

#include <filesystem>
#include <string>

namespace attn {

std::string attribute_build_log(const std::string& log, const std::filesystem::path& source);

}  // namespace attn

// Files that may be gzipped: Kernel Tuner's cache files and the autotuning community's recorded spaces are
// stored as .json.gz.
#pragma once

#include <filesystem>
#include <string>

namespace attn {

// The whole file, inflated when it is gzip data (its first bytes say so, whatever its name), as it is otherwise.
// Throws Error naming the path when it cannot be read or its gzip data is damaged.
std::string read_maybe_gzipped_file(const std::filesystem::path& path);

}  // namespace attn

// Whole-file reads, and writes that never leave a half-written file behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace attn {

// Throws Error naming the path when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// Writes to PATH.tmp.<pid>, flushes it to disk, then renames over PATH:
// readers see the old file or the new one, never a torn one.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace attn

// Whole-file reads, and writes that never leave a half-written file behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace attn {

// Throws Error naming the path when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// Writes to PATH.tmp.<pid>, flushes it to disk, then renames over PATH:
// readers see the old file or the new one, never a torn one. Throws UsageError when PATH is there but is no
// regular file (a symlink, a device such as /dev/null, a folder): renaming over it would replace it.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// NAME (a shape's or kernel's, which may hold '/', '..', spaces) as one path component: other characters than
// letters, digits, '-', '_' and '.' become '_', and a long name is cut and given a hash of the whole, so two
// names stay apart and no file name passes the file system's 255 bytes.
std::string file_name_part(std::string_view name);

}  // namespace attn

// SHA-256 of sources and specs, so a leaderboard can be matched with `sha256sum`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace attn {

std::string sha256_hex(std::string_view data);
std::string sha256_file(const std::filesystem::path& path);  // throws Error if unreadable

}  // namespace attn

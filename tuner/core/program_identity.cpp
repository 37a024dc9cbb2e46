#include "tuner/core/program_identity.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "tuner/core/version.hpp"

namespace attn {

std::string running_program_identity() {
  static const std::string identity = [] {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string();  // unknown: nothing is kept under it
    const auto size = std::filesystem::file_size(exe, ec);
    if (ec) return std::string();
    const auto mtime = std::filesystem::last_write_time(exe, ec);
    if (ec) return std::string();
    return fmt::format("{} {} {} {}", kGitCommit, exe.string(), size, mtime.time_since_epoch().count());
  }();
  return identity;
}

}  // namespace attn

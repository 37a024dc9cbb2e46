#include "tuner/cache/cache_settings.hpp"

#include <cstdlib>

namespace attn {

std::filesystem::path CompileCacheSettings::resolved_dir() const {
  if (!dir.empty()) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "attn-tune";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "attn-tune";
  return {};
}

nlohmann::json CompileCacheSettings::to_json() const { return *this; }

CompileCacheSettings CompileCacheSettings::from_json(const nlohmann::json& j) { return j.get<CompileCacheSettings>(); }

}  // namespace attn

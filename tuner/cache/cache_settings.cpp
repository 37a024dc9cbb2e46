#include "tuner/cache/cache_settings.hpp"

#include <cstdlib>

namespace attn {

std::filesystem::path CompileCacheSettings::resolved_dir() const {
  if (!dir.empty()) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "attn-tune";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "attn-tune";
  return {};
}

nlohmann::json CompileCacheSettings::to_json() const {
  return {{"enabled", enabled}, {"dir", dir.string()}, {"max_mb", max_mb}};
}

CompileCacheSettings CompileCacheSettings::from_json(const nlohmann::json& j) {
  CompileCacheSettings s;
  s.enabled = j.value("enabled", s.enabled);
  s.dir = j.value("dir", std::string{});
  s.max_mb = j.value("max_mb", s.max_mb);
  return s;
}

}  // namespace attn

// Where compiled kernels are kept between runs, and how much of them.
#pragma once

#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

namespace attn {

struct CompileCacheSettings {
  bool enabled = true;
  std::filesystem::path dir;    // empty: $XDG_CACHE_HOME/attn-tune, else ~/.cache/attn-tune
  std::uint64_t max_mb = 2048;  // least recently used entries go beyond this

  // DIR, or the default location; empty when neither it nor $HOME is set.
  std::filesystem::path resolved_dir() const;

  nlohmann::json to_json() const;  // the macro's below
  static CompileCacheSettings from_json(const nlohmann::json& j);
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CompileCacheSettings, enabled, dir, max_mb)

}  // namespace attn

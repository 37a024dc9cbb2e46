#include "tuner/record/shard.hpp"

#include <charconv>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"

namespace attn {

int shard_of(const std::string& job_key, int count) {
  const std::string hex = sha256_hex(job_key);
  std::uint64_t h = 0;
  std::from_chars(hex.data(), hex.data() + 16, h, 16);
  return static_cast<int>(h % static_cast<std::uint64_t>(count));
}

bool Shard::owns(const std::string& job_key) const { return whole() || shard_of(job_key, count) == index; }

std::string Shard::label() const { return fmt::format("shard-{}-of-{}", index, count); }

nlohmann::json Shard::to_json() const { return *this; }

Shard Shard::from_json(const nlohmann::json& j) { return j.get<Shard>(); }

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  s.source = "--shard";
  auto number = [&](std::string_view part, int& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !number(all.substr(0, slash), s.index) || !number(all.substr(slash + 1), s.count) ||
      s.count < 1 || s.index < 0 || s.index >= s.count)
    throw UsageError(fmt::format("--shard '{}': expected I/N with 0 <= I < N (shards count from 0: 0/2 and 1/2)", text));
  return s;
}

std::filesystem::path shard_path(const std::filesystem::path& path, const Shard& shard) {
  if (shard.whole()) return path;
  std::filesystem::path out = path;
  const std::string ext = path.extension().string();
  out.replace_filename(fmt::format("{}.{}{}", path.stem().string(), shard.label(), ext));
  return out;
}

}  // namespace attn

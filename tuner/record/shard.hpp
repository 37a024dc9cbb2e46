// One process's part of a sweep: configurations are dealt to shards by a hash
// of (kernel, shape, configuration key), so the shards are disjoint, cover the
// plan, and do not depend on enumeration order or on which other shards ran.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace attn {

struct Shard {
  int index = 0;
  int count = 1;
  std::string source;  // where it came from: "--shard", "Slurm job array (SLURM_ARRAY_TASK_ID=1, ...)"

  bool whole() const { return count <= 1; }
  // Whether the configuration of JOB_KEY (Job::key(): "kernel|shape|config") belongs to this shard.
  bool owns(const std::string& job_key) const;
  std::string label() const;                        // "shard-1-of-4"
  nlohmann::json to_json() const;                   // the macro's below
  static Shard from_json(const nlohmann::json& j);  // the whole plan when J has no count
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Shard, index, count, source)

// The shard, 0..COUNT-1, that a configuration belongs to: the first 64 bits of
// the SHA-256 of its key, modulo COUNT.
int shard_of(const std::string& job_key, int count);

// "I/N" with 0 <= I < N; throws UsageError otherwise.
Shard parse_shard(const std::string& text);

// A shard's own file: "lb.json" -> "lb.shard-1-of-4.json"; PATH itself for the whole sweep.
std::filesystem::path shard_path(const std::filesystem::path& path, const Shard& shard);

}  // namespace attn

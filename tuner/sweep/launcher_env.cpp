#include "tuner/sweep/launcher_env.hpp"

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

// The integer value of NAME; nullopt when unset; UsageError when not an integer.
std::optional<long> integer(const EnvLookup& env, const std::string& name) {
  const auto text = env(name);
  if (!text) return std::nullopt;
  long value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || text->empty())
    throw UsageError(fmt::format("{}='{}' is not an integer", name, *text));
  return value;
}

LauncherPlacement placement(long index, long count, std::string source) {
  if (count < 1 || index < 0 || index >= count)
    throw UsageError(fmt::format("{} does not make a shard (index {} of {}): pass --shard I/N", source, index, count));
  LauncherPlacement p;
  p.shard.index = static_cast<int>(index);
  p.shard.count = static_cast<int>(count);
  p.shard.source = std::move(source);
  return p;
}

std::optional<LauncherPlacement> slurm_array(const EnvLookup& env) {
  const auto id = integer(env, "SLURM_ARRAY_TASK_ID");
  if (!id) return std::nullopt;
  const long min = integer(env, "SLURM_ARRAY_TASK_MIN").value_or(0);
  const long step = std::max(1L, integer(env, "SLURM_ARRAY_TASK_STEP").value_or(1));
  const auto count = integer(env, "SLURM_ARRAY_TASK_COUNT");
  const auto max = integer(env, "SLURM_ARRAY_TASK_MAX");
  if (!count && !max)
    throw UsageError("SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MAX: pass --shard I/N");
  const long n = count ? *count : (*max - min) / step + 1;
  const long index = (*id - min) / step;
  std::string source = fmt::format("Slurm job array (SLURM_ARRAY_TASK_ID={}", *id);
  if (min != 0) source += fmt::format(", SLURM_ARRAY_TASK_MIN={}", min);
  source += count ? fmt::format(", SLURM_ARRAY_TASK_COUNT={})", *count) : fmt::format(", SLURM_ARRAY_TASK_MAX={})", *max);
  return placement(index, n, std::move(source));
}

std::optional<LauncherPlacement> ranked_launcher(const EnvLookup& env, const char* launcher, const std::string& rank_var,
                                                 const std::string& size_var, const std::string& local_var) {
  const auto rank = integer(env, rank_var);
  const auto size = integer(env, size_var);
  if (!rank && !size) return std::nullopt;
  if (!rank || !size)
    throw UsageError(fmt::format("{} sets {} but not {}: pass --shard I/N", launcher, rank ? rank_var : size_var,
                                 rank ? size_var : rank_var));
  auto p = placement(*rank, *size, fmt::format("{} ({}={}, {}={})", launcher, rank_var, *rank, size_var, *size));
  if (const auto local = integer(env, local_var)) {
    if (*local < 0) throw UsageError(fmt::format("{}={} is negative", local_var, *local));
    p.local_rank = static_cast<int>(*local);
  }
  return p;
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

std::optional<LauncherPlacement> placement_from_environment(const EnvLookup& env) {
  if (auto p = slurm_array(env)) return p;
  if (auto p = ranked_launcher(env, "torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK")) return p;
  return ranked_launcher(env, "Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK");
}

}  // namespace attn

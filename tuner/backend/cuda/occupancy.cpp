#include "tuner/backend/cuda/occupancy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>

#include <fmt/format.h>

namespace attn {
namespace {

ArchLimits make(const char* arch, int major, int minor, int warps, int blocks, long long smem_sm, long long smem_block) {
  ArchLimits l;
  l.arch = arch;
  l.major = major;
  l.minor = minor;
  l.max_warps_per_sm = warps;
  l.max_blocks_per_sm = blocks;
  l.shared_per_sm = smem_sm;
  l.max_shared_per_block = smem_block;
  return l;
}

// CUDA C Programming Guide, "Technical Specifications per Compute Capability",
// and cuda_occupancy.h. Every entry: 64 K registers per SM and per block,
// 255 per thread, 1 KB reserved shared memory per block.
const std::array<ArchLimits, 4>& table() {
  static const std::array<ArchLimits, 4> t{
      make("sm_80", 8, 0, 64, 32, 164 * 1024, 163 * 1024),  // A100
      make("sm_86", 8, 6, 48, 16, 100 * 1024, 99 * 1024),   // RTX 30xx, A40, A10
      make("sm_89", 8, 9, 48, 24, 100 * 1024, 99 * 1024),   // L4, L40, RTX 40xx
      make("sm_90", 9, 0, 64, 32, 228 * 1024, 227 * 1024),  // H100, H200
  };
  return t;
}

// "sm_90a" -> "sm_90"; "compute_90" -> "sm_90".
std::string base_arch(std::string_view arch) {
  std::string_view digits;
  if (arch.substr(0, 3) == "sm_") digits = arch.substr(3);
  else if (arch.substr(0, 8) == "compute_") digits = arch.substr(8);
  else return std::string(arch);
  std::size_t n = 0;
  while (n < digits.size() && std::isdigit(static_cast<unsigned char>(digits[n]))) ++n;
  return "sm_" + std::string(digits.substr(0, n));
}

int div_up(long long x, long long y) { return static_cast<int>((x + y - 1) / y); }
long long round_up(long long x, long long y) { return (x + y - 1) / y * y; }

}  // namespace

const ArchLimits* find_arch_limits(std::string_view arch) {
  const std::string base = base_arch(arch);
  for (const auto& l : table())
    if (l.arch == base) return &l;
  return nullptr;
}

ArchLimits arch_limits_for(const DeviceInfo& info) {
  ArchLimits l;
  if (const ArchLimits* known = find_arch_limits(info.arch)) {
    l = *known;
  } else {
    l = table().back();  // the newest we know, as the starting point
    l.arch = base_arch(info.arch);
    const std::string digits = l.arch.size() > 3 ? l.arch.substr(3) : std::string();
    if (digits.size() >= 2) {
      l.major = std::stoi(digits.substr(0, digits.size() - 1));
      l.minor = digits.back() - '0';
    }
  }
  if (info.registers_per_sm > 0) l.registers_per_sm = info.registers_per_sm;
  if (info.max_threads_per_sm > 0) l.max_warps_per_sm = info.max_threads_per_sm / l.warp_size;
  if (info.shared_mem_per_sm > 0) l.shared_per_sm = static_cast<long long>(info.shared_mem_per_sm);
  if (info.local_mem_bytes > 0) l.max_shared_per_block = static_cast<long long>(info.local_mem_bytes);
  if (info.max_work_group_size > 0) l.max_threads_per_block = static_cast<int>(info.max_work_group_size);
  return l;
}

OccupancyResult theoretical_occupancy(const ArchLimits& L, const OccupancyInput& in) {
  OccupancyResult r;
  if (in.threads_per_block <= 0) {
    r.invalid = "a block needs at least one thread";
    return r;
  }
  const int warps_per_block = div_up(in.threads_per_block, L.warp_size);

  // Warps.
  if (in.threads_per_block > L.max_threads_per_block) {
    r.limit_warps = 0;
    r.invalid = fmt::format("{} threads per block exceed the limit of {}", in.threads_per_block, L.max_threads_per_block);
  } else {
    r.limit_warps = L.max_warps_per_sm / warps_per_block;
  }

  // Blocks.
  r.limit_blocks = L.max_blocks_per_sm;

  // Registers: allocated per warp in units of register_alloc_unit, per sub-partition.
  const long long regs_per_warp =
      round_up(static_cast<long long>(in.registers_per_thread) * L.warp_size, L.register_alloc_unit);
  r.registers_per_block = static_cast<int>(regs_per_warp * warps_per_block);
  // The hardware check assumes the warps are spread over all sub-partitions.
  const long long regs_assumed = regs_per_warp * round_up(warps_per_block, L.sub_partitions);
  if (in.registers_per_thread > L.max_registers_per_thread) {
    r.limit_registers = 0;
    if (r.invalid.empty())
      r.invalid =
          fmt::format("{} registers per thread exceed the limit of {}", in.registers_per_thread, L.max_registers_per_thread);
  } else if (regs_assumed > L.max_registers_per_block || r.registers_per_block > L.max_registers_per_block) {
    r.limit_registers = 0;
    if (r.invalid.empty())
      r.invalid = fmt::format("{} registers per block exceed the limit of {}",
                              std::max<long long>(regs_assumed, r.registers_per_block), L.max_registers_per_block);
  } else if (regs_per_warp == 0) {
    r.limit_registers = INT_MAX;
  } else {
    const long long per_partition = L.registers_per_sm / L.sub_partitions;
    const long long warps_per_sm = (per_partition / regs_per_warp) * L.sub_partitions;
    r.limit_registers = static_cast<int>(warps_per_sm / warps_per_block);
  }

  // Shared memory.
  const long long requested = in.static_shared_bytes + in.dynamic_shared_bytes;
  r.shared_per_block = round_up(requested + L.shared_reserved_per_block, L.shared_alloc_unit);
  if (r.shared_per_block > L.max_shared_per_block + L.shared_reserved_per_block) {
    r.limit_shared = 0;
    if (r.invalid.empty())
      r.invalid =
          fmt::format("{} bytes of shared memory per block exceed the limit of {}", requested, L.max_shared_per_block);
  } else {
    r.limit_shared = r.shared_per_block > 0 ? static_cast<int>(L.shared_per_sm / r.shared_per_block) : INT_MAX;
  }

  int blocks = std::min({r.limit_warps, r.limit_blocks, r.limit_registers, r.limit_shared});

  // Barriers (Hopper on).
  r.limit_barriers = INT_MAX;
  if (L.major >= 9 && in.barriers > 0) r.limit_barriers = L.barriers_per_block_slot * L.max_blocks_per_sm / in.barriers;
  blocks = std::min(blocks, r.limit_barriers);

  if (blocks > 0) {
    auto add = [&](int limit, const char* what) {
      if (limit == blocks) r.limited_by += (r.limited_by.empty() ? "" : ", ") + std::string(what);
    };
    add(r.limit_warps, "warps");
    add(r.limit_blocks, "blocks");
    add(r.limit_registers, "registers");
    add(r.limit_shared, "shared memory");
    add(r.limit_barriers, "barriers");
  } else if (r.invalid.empty()) {
    r.invalid = "no block fits on an SM";
  }
  if (blocks == 0) {
    if (r.limit_warps == 0) r.limited_by = "warps";
    else if (r.limit_registers == 0) r.limited_by = "registers";
    else if (r.limit_shared == 0) r.limited_by = "shared memory";
    else if (r.limit_barriers == 0) r.limited_by = "barriers";
  }
  // Limits that do not apply read as "unbounded" only internally.
  auto clamp = [&](int& v) { v = std::min(v, 1 << 20); };
  clamp(r.limit_registers);
  clamp(r.limit_shared);
  clamp(r.limit_barriers);

  r.blocks_per_sm = blocks;
  r.warps_per_sm = blocks * warps_per_block;
  r.occupancy = L.max_warps_per_sm > 0 ? static_cast<double>(r.warps_per_sm) / L.max_warps_per_sm : 0.0;
  return r;
}

std::optional<OccupancyResult> theoretical_occupancy(const ArchLimits& limits, const KernelResources& resources,
                                                     const Launch& launch) {
  if (!resources.registers) return std::nullopt;
  OccupancyInput in;
  in.registers_per_thread = static_cast<int>(*resources.registers);
  const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  in.threads_per_block = static_cast<int>(std::min<std::uint64_t>(threads, INT_MAX));
  in.static_shared_bytes = resources.static_local_bytes.value_or(0);
  in.dynamic_shared_bytes = static_cast<long long>(launch.dynamic_shared_bytes);
  return theoretical_occupancy(limits, in);
}

}  // namespace attn

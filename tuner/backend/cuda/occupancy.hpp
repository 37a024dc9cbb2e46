// Theoretical occupancy, as the CUDA occupancy calculator computes it
// (cuda_occupancy.h's cudaOccMaxActiveBlocksPerMultiprocessor, for the default
// shared-memory carveout and with the dynamic shared-memory limit raised as
// CudaDevice::run raises it).
//
// Resident blocks per SM = the least of:
//   warps:     max_warps_per_sm / ceil(threads / 32)
//   blocks:    max_blocks_per_sm
//   registers: registers are given to warps in units of 256, ceil(regs * 32 / 256) * 256
//              per warp, from each of the SM's 4 sub-partitions (regs_per_sm / 4);
//              warps per SM = 4 * floor(regs_per_sm / 4 / regs_per_warp); none when the
//              block's registers exceed the per-block limit or regs > 255
//   shared:    (static + dynamic + 1 KB reserved) rounded up to 128 bytes per block, out
//              of shared_per_sm; none when static + dynamic > max_shared_per_block
//   barriers:  (Hopper) 2 * max_blocks_per_sm / barriers per block
// Occupancy = resident blocks * warps per block / max_warps_per_sm.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tuner/device/device.hpp"

namespace attn {

struct ArchLimits {
  std::string arch;  // "sm_90"
  int major = 0, minor = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_alloc_unit = 256;               // registers, per warp
  int sub_partitions = 4;                      // register file split across schedulers
  long long shared_per_sm = 0;                 // bytes, largest carveout
  long long max_shared_per_block = 0;          // bytes usable by one block, opt-in (static + dynamic)
  long long shared_reserved_per_block = 1024;  // bytes the driver keeps per block (sm_80+)
  int shared_alloc_unit = 128;                 // bytes
  int barriers_per_block_slot = 2;             // Hopper: 2 * max_blocks_per_sm barriers per SM
};

// The table: sm_80, sm_86, sm_89, sm_90 (also sm_90a / sm_90f: the suffix is dropped).
// nullptr for an arch not in it.
const ArchLimits* find_arch_limits(std::string_view arch);

// The limits of a device: the table's entry for info.arch when there is one,
// else sm_90-like defaults; overridden in either case by what the device
// reported (registers_per_sm, max_threads_per_sm, shared_mem_per_sm,
// local_mem_bytes as the opt-in per-block limit, max_work_group_size).
ArchLimits arch_limits_for(const DeviceInfo& info);

struct OccupancyInput {
  int registers_per_thread = 0;
  int threads_per_block = 0;
  long long static_shared_bytes = 0;
  long long dynamic_shared_bytes = 0;
  int barriers = 0;  // named barriers used (ptxas "used N barriers"); 0 = not counted
};

struct OccupancyResult {
  int blocks_per_sm = 0;  // resident blocks
  int warps_per_sm = 0;   // resident warps
  double occupancy = 0;   // warps_per_sm / max_warps_per_sm, 0..1
  // Blocks per SM each resource allows (one that does not apply reads 1048576), and which
  // one (or ones, ", "-joined) binds: "warps", "blocks", "registers", "shared memory",
  // "barriers".
  int limit_warps = 0, limit_blocks = 0, limit_registers = 0, limit_shared = 0, limit_barriers = 0;
  std::string limited_by;
  int registers_per_block = 0;     // allocated
  long long shared_per_block = 0;  // allocated, reserved part included
  std::string invalid;             // why the launch cannot run at all, when blocks_per_sm == 0
};

OccupancyResult theoretical_occupancy(const ArchLimits& limits, const OccupancyInput& in);

// For a compiled kernel and a launch: nullopt when resources.registers is unknown.
// Static shared memory from resources.static_local_bytes (0 when unknown).
std::optional<OccupancyResult> theoretical_occupancy(const ArchLimits& limits, const KernelResources& resources,
                                                     const Launch& launch);

}  // namespace attn

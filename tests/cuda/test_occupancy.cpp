// Theoretical occupancy against hand-computed cases (the CUDA occupancy calculator's rules).
#include <gtest/gtest.h>

#include "tuner/backend/cuda/occupancy.hpp"

namespace attn {
namespace {

const ArchLimits& sm(const char* arch) {
  const ArchLimits* l = find_arch_limits(arch);
  EXPECT_NE(l, nullptr) << arch;
  return *l;
}

OccupancyResult occ(const char* arch, int regs, int threads, long long static_smem = 0, long long dyn_smem = 0,
                    int barriers = 0) {
  return theoretical_occupancy(sm(arch), OccupancyInput{regs, threads, static_smem, dyn_smem, barriers});
}

TEST(ArchLimits, Table) {
  const ArchLimits& h = sm("sm_90");
  EXPECT_EQ(h.registers_per_sm, 65536);
  EXPECT_EQ(h.max_warps_per_sm, 64);
  EXPECT_EQ(h.max_blocks_per_sm, 32);
  EXPECT_EQ(h.shared_per_sm, 228 * 1024);
  EXPECT_EQ(h.max_shared_per_block, 227 * 1024);
  EXPECT_EQ(h.max_registers_per_thread, 255);
  EXPECT_EQ(h.shared_reserved_per_block, 1024);
  EXPECT_EQ(find_arch_limits("sm_90a"), find_arch_limits("sm_90"));
  EXPECT_EQ(find_arch_limits("compute_90"), find_arch_limits("sm_90"));
  EXPECT_EQ(sm("sm_80").shared_per_sm, 164 * 1024);
  EXPECT_EQ(sm("sm_86").max_warps_per_sm, 48);
  EXPECT_EQ(sm("sm_86").max_blocks_per_sm, 16);
  EXPECT_EQ(sm("sm_89").max_blocks_per_sm, 24);
  EXPECT_EQ(sm("sm_89").shared_per_sm, 100 * 1024);
  EXPECT_EQ(find_arch_limits("sm_75"), nullptr);
  EXPECT_EQ(find_arch_limits("gfx90a"), nullptr);
}

TEST(Occupancy, FullWhenNothingLimits) {
  // 4 warps/block; 32 regs * 32 = 1024 regs/warp; 16384 per sub-partition -> 16 warps each,
  // 64 per SM -> 16 blocks; warps: 64 / 4 = 16; shared: 1 KB reserved -> 228 blocks.
  const auto r = occ("sm_90", 32, 128);
  EXPECT_EQ(r.limit_registers, 16);
  EXPECT_EQ(r.limit_warps, 16);
  EXPECT_EQ(r.limit_blocks, 32);
  EXPECT_EQ(r.limit_shared, 228);
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_EQ(r.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_EQ(r.limited_by, "warps, registers");
  EXPECT_EQ(r.registers_per_block, 4096);
  EXPECT_EQ(r.shared_per_block, 1024);
  EXPECT_TRUE(r.invalid.empty());
}

TEST(Occupancy, RegisterLimited) {
  // 128 regs: 4096 per warp -> 4 warps per sub-partition, 16 per SM; 8-warp blocks -> 2.
  auto r = occ("sm_90", 128, 256);
  EXPECT_EQ(r.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
  EXPECT_EQ(r.limited_by, "registers");
  // 255 regs: 8160 -> 8192 per warp (granularity 256) -> 2 per sub-partition, 8 per SM.
  r = occ("sm_90", 255, 128);
  EXPECT_EQ(r.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.125);
  // 40 regs: 1280 per warp -> 12 per sub-partition (16384 / 1280 = 12.8) -> 48 warps
  // -> 12 blocks of 4 warps.
  r = occ("sm_90", 40, 128);
  EXPECT_EQ(r.limit_registers, 12);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.75);
  // 33 regs round up like 40: 1056 -> 1280.
  EXPECT_EQ(occ("sm_90", 33, 128).blocks_per_sm, 12);
}

TEST(Occupancy, PerBlockRegisterFile) {
  // 1024 threads * 64 regs = 65536: fits, one block of 32 warps.
  auto r = occ("sm_90", 64, 1024);
  EXPECT_EQ(r.blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  // 65 regs: 2080 -> 2304 per warp * 32 warps = 73728 > 65536: cannot launch.
  r = occ("sm_90", 65, 1024);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.0);
  EXPECT_EQ(r.limited_by, "registers");
  EXPECT_NE(r.invalid.find("registers per block"), std::string::npos);
  // More than 255 per thread never fits.
  r = occ("sm_90", 256, 32);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_NE(r.invalid.find("registers per thread"), std::string::npos);
}

TEST(Occupancy, SharedMemoryLimited) {
  // 100 KB dynamic + 1 KB reserved = 103424 (a multiple of 128) -> 233472 / 103424 = 2 blocks.
  auto r = occ("sm_90", 32, 128, 0, 100 * 1024);
  EXPECT_EQ(r.limit_shared, 2);
  EXPECT_EQ(r.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 8.0 / 64);
  EXPECT_EQ(r.limited_by, "shared memory");
  EXPECT_EQ(r.shared_per_block, 103424);
  // Static and dynamic add up; 100 bytes round up to 128: 48 KB + 100 + 1 KB -> 50304 ->
  // 233472 / 50304 = 4.
  r = occ("sm_90", 32, 128, 48 * 1024, 100);
  EXPECT_EQ(r.shared_per_block, 50304);
  EXPECT_EQ(r.blocks_per_sm, 4);
  // The whole opt-in limit: 227 KB + 1 KB = 228 KB -> exactly one block.
  r = occ("sm_90", 32, 128, 0, 227 * 1024);
  EXPECT_EQ(r.blocks_per_sm, 1);
  // One byte more cannot launch.
  r = occ("sm_90", 32, 128, 0, 227 * 1024 + 1);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_EQ(r.limited_by, "shared memory");
  EXPECT_NE(r.invalid.find("shared memory"), std::string::npos);
  // sm_86: 100 KB per SM, 99 KB per block: 48 KB + 1 KB -> 2 blocks.
  r = occ("sm_86", 32, 128, 0, 48 * 1024);
  EXPECT_EQ(r.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r.occupancy, 8.0 / 48);
  EXPECT_EQ(occ("sm_86", 32, 128, 0, 100 * 1024).blocks_per_sm, 0);
}

TEST(Occupancy, BlockAndWarpLimits) {
  // One warp per block: warps allow 64 blocks, the SM holds 32 -> half occupancy.
  auto r = occ("sm_90", 16, 32);
  EXPECT_EQ(r.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  EXPECT_EQ(r.limited_by, "blocks");
  // sm_86: 48 warps, 16 blocks: 2-warp blocks -> 16 blocks, 32 warps -> 2/3.
  r = occ("sm_86", 32, 64);
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_NEAR(r.occupancy, 2.0 / 3.0, 1e-12);
  // sm_86, 4-warp blocks: 12 by warps.
  r = occ("sm_86", 32, 128);
  EXPECT_EQ(r.blocks_per_sm, 12);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  // sm_89 holds 24 one-warp blocks.
  EXPECT_EQ(occ("sm_89", 16, 32).blocks_per_sm, 24);
  // A partial warp counts as a whole one: 96 + 1 threads -> 4 warps.
  EXPECT_EQ(occ("sm_90", 32, 97).warps_per_sm, 64);
  // Too many threads per block.
  r = occ("sm_90", 16, 1025);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_NE(r.invalid.find("threads per block"), std::string::npos);
  EXPECT_EQ(occ("sm_90", 16, 0).blocks_per_sm, 0);
}

TEST(Occupancy, HopperBarriers) {
  // 4 named barriers per block: 64 / 4 = 16 blocks.
  auto r = occ("sm_90", 16, 32, 0, 0, 4);
  EXPECT_EQ(r.limit_barriers, 16);
  EXPECT_EQ(r.blocks_per_sm, 16);
  EXPECT_EQ(r.limited_by, "barriers");
  // One barrier (__syncthreads) never limits.
  EXPECT_EQ(occ("sm_90", 16, 32, 0, 0, 1).blocks_per_sm, 32);
  // Not counted before Hopper.
  EXPECT_EQ(occ("sm_80", 16, 32, 0, 0, 4).blocks_per_sm, 32);
}

TEST(Occupancy, FromResourcesAndLaunch) {
  KernelResources res;
  Launch launch;
  launch.block = {32, 4, 1};
  EXPECT_FALSE(theoretical_occupancy(sm("sm_90"), res, launch).has_value());
  res.registers = 128;
  res.static_local_bytes = 512;
  launch.block = {64, 4, 1};  // 256 threads
  launch.dynamic_shared_bytes = 0;
  auto r = theoretical_occupancy(sm("sm_90"), res, launch);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r->occupancy, 0.25);
  EXPECT_EQ(r->shared_per_block, 1536);
}

TEST(Occupancy, LimitsForDevice) {
  DeviceInfo h100;
  h100.arch = "sm_90";
  h100.registers_per_sm = 65536;
  h100.max_threads_per_sm = 2048;
  h100.shared_mem_per_sm = 233472;
  h100.local_mem_bytes = 232448;
  h100.max_work_group_size = 1024;
  ArchLimits l = arch_limits_for(h100);
  EXPECT_EQ(l.max_warps_per_sm, 64);
  EXPECT_EQ(l.max_shared_per_block, 232448);
  EXPECT_EQ(l.max_blocks_per_sm, 32);
  // An arch the table does not know takes the device's figures over sm_90's.
  DeviceInfo future;
  future.arch = "sm_120";
  future.max_threads_per_sm = 1536;
  future.shared_mem_per_sm = 100 * 1024;
  future.local_mem_bytes = 99 * 1024;
  l = arch_limits_for(future);
  EXPECT_EQ(l.arch, "sm_120");
  EXPECT_EQ(l.major, 12);
  EXPECT_EQ(l.minor, 0);
  EXPECT_EQ(l.max_warps_per_sm, 48);
  EXPECT_EQ(l.shared_per_sm, 100 * 1024);
}

}  // namespace
}  // namespace attn

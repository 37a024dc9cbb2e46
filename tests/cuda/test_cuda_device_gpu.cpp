// CudaDevice on a real GPU. Every test here skips where there is no driver or
// no device (CI, the development container); they run on a GPU machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "tuner/backend/cuda/cuda_device.hpp"
#include "tuner/backend/cuda/cuda_driver.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(ATTN_TUNE_CUDA_TEST_DATA) / "kernels" / name;
}

CompileRequest request(const std::string& file, std::vector<std::string> entries) {
  CompileRequest r;
  r.source_path = data(file);
  r.include_dirs = {std::filesystem::path(ATTN_TUNE_SOURCE_DIR) / "kernels"};
  r.entries = std::move(entries);
  return r;
}

bool have_gpu() {
  std::vector<std::string> notes;
  return !list_cuda_devices(notes).empty();
}

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA driver or device here"

Launch launch(const std::string& entry, std::uint64_t grid, std::uint64_t block, std::uint64_t smem = 0) {
  Launch l;
  l.entry = entry;
  l.grid = {grid, 1, 1};
  l.block = {block, 1, 1};
  l.dynamic_shared_bytes = smem;
  return l;
}

TEST(CudaDeviceGpu, Info) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  const DeviceInfo& i = dev.info();
  EXPECT_EQ(i.id, "cuda:0");
  EXPECT_EQ(i.backend, "cuda");
  EXPECT_EQ(i.vendor, "NVIDIA Corporation");
  EXPECT_EQ(i.platform, "CUDA");
  EXPECT_EQ(i.kind, "gpu");
  EXPECT_FALSE(i.name.empty());
  EXPECT_NE(i.driver_version.find("CUDA "), std::string::npos);
  EXPECT_EQ(i.arch.rfind("sm_", 0), 0u);
  EXPECT_GT(i.compute_units, 0);
  EXPECT_GT(i.clock_mhz, 0);
  EXPECT_GT(i.global_mem_bytes, 0u);
  EXPECT_GT(i.local_mem_bytes, 48u * 1024);
  EXPECT_GT(i.cache_bytes, 0u);
  EXPECT_EQ(i.max_work_group_size, 1024u);
  EXPECT_GT(i.registers_per_sm, 0);
  EXPECT_GT(i.max_threads_per_sm, 0);
  EXPECT_GT(i.shared_mem_per_sm, 0u);
  std::printf("device: %s, %s, driver %s, %d SMs, %d MHz, L2 %llu, smem/SM %llu, optin %llu\n", i.name.c_str(),
              i.arch.c_str(), i.driver_version.c_str(), i.compute_units, i.clock_mhz,
              static_cast<unsigned long long>(i.cache_bytes), static_cast<unsigned long long>(i.shared_mem_per_sm),
              static_cast<unsigned long long>(i.local_mem_bytes));
  if (const ArchLimits* known = find_arch_limits(i.arch)) {
    // The table agrees with what the device reports.
    EXPECT_EQ(known->shared_per_sm, static_cast<long long>(i.shared_mem_per_sm));
    EXPECT_EQ(known->max_shared_per_block, static_cast<long long>(i.local_mem_bytes));
    EXPECT_EQ(known->max_warps_per_sm * 32, i.max_threads_per_sm);
    EXPECT_EQ(known->registers_per_sm, i.registers_per_sm);
  }
}

TEST(CudaDeviceGpu, CompileRunReadBack) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  CompileRequest r = request("defines.cu", {"add_one", "scale_rows"});
  r.defines = {{"BLOCK_M", 128}, {"HEAD_DIM", 64}};
  auto program = dev.compile(r);
  const auto& cp = dynamic_cast<const CudaProgram&>(*program);
  EXPECT_TRUE(cp.loaded());
  EXPECT_EQ(cp.arch(), dev.info().arch);
  const KernelResources res = program->resources("scale_rows");
  EXPECT_EQ(res.registers, cp.nvrtc().ptxas.find("scale_rows")->registers);  // driver == ptxas
  EXPECT_EQ(res.static_local_bytes, 512);
  EXPECT_EQ(res.private_mem_bytes, 0);
  EXPECT_EQ(res.spill_store_bytes, 0);
  EXPECT_EQ(res.max_work_group_size, 1024);

  const int n = 1000;
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 0.0f);
  auto buf = dev.allocate(n * sizeof(float));
  EXPECT_EQ(buf->size(), n * sizeof(float));
  dev.write(*buf, host.data(), n * sizeof(float));
  const double ms = dev.run(*program, {launch("add_one", (n + 255) / 256, 256), launch("add_one", (n + 255) / 256, 256)},
                            {KernelArg::of(*buf), KernelArg::value(n)});
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 1000.0);
  std::vector<float> back(n);
  dev.read(*buf, back.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], float(i) + 2.0f) << i;

  dev.flush_cache();
  dev.flush_cache();
  EXPECT_GT(dev.run(*program, {launch("add_one", 4, 256)}, {KernelArg::of(*buf), KernelArg::value(n)}), 0.0);
  EXPECT_EQ(dev.run(*program, {}, std::vector<KernelArg>{}), 0.0);

  // Bounds.
  std::vector<float> big(n + 1);
  EXPECT_THROW(dev.write(*buf, big.data(), big.size() * sizeof(float)), BackendError);
  EXPECT_THROW(dev.read(*buf, big.data(), big.size() * sizeof(float)), BackendError);
  auto empty = dev.allocate(0);
  EXPECT_EQ(empty->size(), 0u);
}

// A pipeline whose launches take different argument lists: the first fills X, the second adds X into Y,
// run directly and as a captured graph.
TEST(CudaDeviceGpu, LaunchesWithTheirOwnArgumentListsPassABufferBetweenThem) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  auto program = dev.compile(request("two_signatures.cu", {"fill", "add_into"}));
  const int n = 1000;
  auto x = dev.allocate(n * sizeof(float));
  auto y = dev.allocate(n * sizeof(float));
  const std::vector<float> ones(n, 1.0f);
  dev.write(*y, ones.data(), n * sizeof(float));
  const std::vector<Launch> launches = {launch("fill", (n + 255) / 256, 256), launch("add_into", (n + 255) / 256, 256)};
  const LaunchArguments args = {{KernelArg::of(*x), KernelArg::value(0.5f), KernelArg::value(n)},
                                {KernelArg::of(*x), KernelArg::of(*y), KernelArg::value(n)}};
  EXPECT_GT(dev.run(*program, launches, args), 0.0);
  std::vector<float> back(n);
  dev.read(*y, back.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], 1.5f + float(i)) << i;
  if (dev.can_capture()) {
    auto graph = dev.capture(*program, launches, args);
    EXPECT_GT(graph->replay(), 0.0);
    dev.read(*y, back.data(), n * sizeof(float));
    for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], 2.0f + 2.0f * float(i)) << i;
  }
  // One list too few is refused, naming both counts.
  EXPECT_THROW(dev.run(*program, launches, LaunchArguments{args[0]}), LaunchError);
}

TEST(CudaDeviceGpu, DynamicSharedMemoryAbove48K) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  auto program = dev.compile(request("dynamic_smem.cu", {"reverse_block"}));
  for (int per_thread : {16, 64, 200}) {  // 16, 64 and 200 KB with 256 threads
    const int threads = 256, blocks = 3;
    const int n = threads * per_thread;
    const std::uint64_t smem = std::uint64_t(n) * sizeof(float);
    if (smem > dev.info().local_mem_bytes) continue;
    std::vector<float> in(std::size_t(n) * blocks), out(in.size());
    std::iota(in.begin(), in.end(), 1.0f);
    auto a = dev.allocate(in.size() * sizeof(float));
    auto b = dev.allocate(in.size() * sizeof(float));
    dev.write(*a, in.data(), in.size() * sizeof(float));
    const Launch l = launch("reverse_block", blocks, threads, smem);
    dev.run(*program, {l}, {KernelArg::of(*a), KernelArg::of(*b), KernelArg::value(per_thread)});
    dev.read(*b, out.data(), out.size() * sizeof(float));
    for (int blk = 0; blk < blocks; ++blk)
      for (int j = 0; j < n; ++j)
        ASSERT_EQ(out[std::size_t(blk) * n + j], in[std::size_t(blk) * n + (n - 1 - j)]) << per_thread << " " << j;
    const double achieved = dev.occupancy(*program, l);
    const auto theory = dev.theoretical_occupancy(*program, l);
    ASSERT_TRUE(theory.has_value());
    EXPECT_NEAR(achieved, theory->occupancy, 1e-9) << "smem " << smem << " " << theory->limited_by;
  }
  // More than a block may have.
  const Launch too_big = launch("reverse_block", 1, 256, dev.info().local_mem_bytes + 4);
  auto a = dev.allocate(16);
  EXPECT_THROW(dev.run(*program, {too_big}, {KernelArg::of(*a), KernelArg::of(*a), KernelArg::value(1)}), LaunchError);
}

TEST(CudaDeviceGpu, OccupancyMatchesTheDriver) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  auto spill = dev.compile(request("spill.cu", {"dynamic_index", "register_pressure", "simple"}));
  CompileRequest r = request("defines.cu", {"scale_rows", "add_one"});
  r.defines = {{"BLOCK_M", 128}, {"HEAD_DIM", 64}};
  auto defines = dev.compile(r);
  auto dyn = dev.compile(request("dynamic_smem.cu", {"reverse_block"}));
  struct Case {
    const Program* p;
    const char* entry;
    int threads;
    std::uint64_t smem;
  };
  const std::vector<Case> cases = {
      {spill.get(), "dynamic_index", 32, 0},
      {spill.get(), "dynamic_index", 256, 0},
      {spill.get(), "dynamic_index", 1024, 0},
      {spill.get(), "register_pressure", 1024, 0},
      {spill.get(), "register_pressure", 96, 0},
      {spill.get(), "simple", 32, 0},
      {spill.get(), "simple", 64, 0},
      {spill.get(), "simple", 1000, 0},
      {defines.get(), "scale_rows", 128, 0},
      {defines.get(), "add_one", 128, 20000},
      {dyn.get(), "reverse_block", 128, 40 * 1024},
      {dyn.get(), "reverse_block", 512, 100 * 1024},
      {dyn.get(), "reverse_block", 64, 7 * 1024},
      {dyn.get(), "reverse_block", 992, 1},
  };
  for (const Case& c : cases) {
    const Launch l = launch(c.entry, 1, c.threads, c.smem);
    const double achieved = dev.occupancy(*c.p, l);
    const auto theory = dev.theoretical_occupancy(*c.p, l);
    ASSERT_TRUE(theory.has_value());
    EXPECT_NEAR(achieved, theory->occupancy, 1e-9)
        << c.entry << " threads " << c.threads << " smem " << c.smem << " regs "
        << c.p->resources(c.entry).registers.value_or(-1) << " limited by " << theory->limited_by;
  }
}

TEST(CudaDeviceGpu, LaunchErrorsLeaveTheDeviceUsable) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  CompileRequest r = request("defines.cu", {"add_one"});
  r.defines = {{"HEAD_DIM", 64}};
  auto program = dev.compile(r);
  auto buf = dev.allocate(1024 * sizeof(float));
  const std::vector<KernelArg> args = {KernelArg::of(*buf), KernelArg::value(1024)};
  EXPECT_THROW(dev.run(*program, {launch("add_one", 1, 2048)}, args), LaunchError);  // > 1024 threads
  EXPECT_THROW(dev.run(*program, {launch("add_one", 0, 32)}, args), LaunchError);    // empty grid
  EXPECT_THROW(dev.run(*program, {launch("nope", 1, 32)}, args), LaunchError);       // unknown entry
  EXPECT_THROW(dev.run(*program, {launch("add_one", 1ull << 33, 32)}, args), LaunchError);
  if (cu::driver().cuFuncGetParamInfo) {
    EXPECT_THROW(dev.run(*program, {launch("add_one", 1, 32)}, {KernelArg::of(*buf)}), LaunchError);
    EXPECT_THROW(dev.run(*program, {launch("add_one", 1, 32)}, {KernelArg::of(*buf), KernelArg::value(1.0)}),
                 LaunchError);  // an 8-byte double for a 4-byte int
  }
  EXPECT_THROW(dev.run(*program, {launch("add_one", 1, 32)}, {KernelArg::of(*buf), KernelArg{}}), LaunchError);
  // An offline program cannot run.
  CompileRequest off = r;
  off.arch = dev.info().arch;
  auto offline = compile_cuda_offline(off);
  EXPECT_THROW(dev.run(*offline, {launch("add_one", 1, 32)}, args), LaunchError);
  // Still fine.
  EXPECT_FALSE(dev.lost());
  EXPECT_GT(dev.run(*program, {launch("add_one", 4, 256)}, args), 0.0);
}

TEST(CudaDeviceGpu, CubinForAnotherArchIsACompileError) {
  REQUIRE_GPU();
  CudaDevice dev(0);
  if (dev.info().arch.rfind("sm_9", 0) != 0) GTEST_SKIP() << "written for a Hopper device";
  CompileRequest r = request("spill.cu", {"simple"});
  r.arch = "sm_80";  // an sm_80 CUBIN does not load on sm_90
  try {
    dev.compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleLoadDataEx"), std::string::npos) << e.what();
  }
  r.arch = "compute_90";  // PTX, JIT-compiled by the driver
  auto p = dev.compile(r);
  EXPECT_GT(p->resources("simple").registers.value_or(0), 0);
  r.arch = "sm_90a";
  EXPECT_NO_THROW(dev.compile(r));
}

// A sticky error poisons the process: each runs in a child process of its own.
void fault_then_check(const char* entry, bool wild) {
  CudaDevice dev(0);
  auto program = dev.compile(request("faults.cu", {"write_wild", "trap_now"}));
  auto buf = dev.allocate(1024);
  std::vector<KernelArg> args = {KernelArg::of(*buf)};
  if (wild) args.push_back(KernelArg::value<unsigned long long>(1ull << 40));
  try {
    dev.run(*program, {launch(entry, 1, 32)}, args);
    std::fprintf(stderr, "no error\n");
    std::exit(1);
  } catch (const DeviceLost& e) {
    std::fprintf(stderr, "DeviceLost: %s\n", e.what());
  }
  if (!dev.lost()) std::exit(2);
  try {
    dev.allocate(16);
    std::exit(3);
  } catch (const DeviceLost&) {
  }
  std::exit(0);
}

TEST(CudaDeviceGpuDeathTest, IllegalAddressIsDeviceLost) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_then_check("write_wild", true), testing::ExitedWithCode(0), "DeviceLost: .*ILLEGAL_ADDRESS");
}

TEST(CudaDeviceGpuDeathTest, TrapIsDeviceLost) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_then_check("trap_now", false), testing::ExitedWithCode(0), "DeviceLost: ");
}

TEST(CudaDeviceGpu, OpenOutOfRange) {
  REQUIRE_GPU();
  EXPECT_THROW(open_cuda_device(4096), UsageError);
  EXPECT_THROW(open_cuda_device(-1), UsageError);
}

}  // namespace
}  // namespace attn

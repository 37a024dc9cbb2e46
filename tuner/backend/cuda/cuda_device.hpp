// The CUDA backend: NVRTC to compile, the driver API (loaded at run time, see
// cuda_driver.hpp) to load modules, move bytes and launch.
//
// Device ids are "cuda:N", N the driver's device ordinal. A CudaDevice holds the
// device's primary context (retained for as long as the device, or any program
// or buffer made from it, lives) and one stream on which copies, cache flushes
// and timed launches run in order.
//
// Errors: BackendError (allocation, copy, query), CompileError (NVRTC, or a
// module the driver refuses), LaunchError (a launch refused or failed without
// harming the context), DeviceLost (sticky errors: illegal address, trap,
// misaligned access, ... : the process cannot use CUDA any more; the sweep must
// replace the worker). After DeviceLost every call on the device throws
// DeviceLost again.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tuner/backend/cuda/nvml.hpp"
#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/backend/cuda/occupancy.hpp"
#include "tuner/device/device.hpp"

namespace attn {

namespace cuda_detail {
struct Context;
struct Module;
}  // namespace cuda_detail

// A compiled CUDA program: the NVRTC result, and (when compiled by a CudaDevice)
// the loaded module with its functions. Made offline it only describes the code.
class CudaProgram final : public Program {
 public:
  ~CudaProgram() override;

  const std::string& build_log() const override { return result_.log; }
  double compile_ms() const override { return result_.compile_ms; }
  // Driver figures (cuFuncGetAttribute) where the module is loaded, ptxas' otherwise.
  // Throws BackendError for an entry that is not in the program.
  KernelResources resources(const std::string& entry) const override;
  bool from_cache() const override { return result_.from_cache; }

  bool loaded() const { return module_ != nullptr; }
  const NvrtcResult& nvrtc() const { return result_; }
  const std::string& arch() const { return result_.arch; }
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  friend class CudaDevice;
  friend std::unique_ptr<Program> compile_cuda_offline(const CompileRequest& request);
  CudaProgram() = default;

  NvrtcResult result_;
  std::vector<std::string> entries_;
  std::vector<KernelResources> resources_;       // by entries_ index
  std::shared_ptr<cuda_detail::Module> module_;  // null offline
};

class CudaDevice final : public Device {
 public:
  // Retains ordinal's primary context. Throws BackendError when the driver or
  // the device cannot be had, UsageError for an ordinal out of range.
  explicit CudaDevice(int ordinal);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const DeviceInfo& info() const override { return info_; }
  const ArchLimits& limits() const { return limits_; }

  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void write(Buffer& dst, const void* src, std::size_t bytes) override;
  void read(const Buffer& src, void* dst, std::size_t bytes) override;

  // NVRTC for request.arch, or this device's arch ("sm_90") when empty; then
  // cuModuleLoadData and every entry looked up. A CUBIN the driver refuses (e.g.
  // for another architecture) is a CompileError.
  std::unique_ptr<Program> compile(const CompileRequest& request) override;

  // NVRTC for every request on all cores; compile() takes the results from here.
  void precompile(const std::vector<CompileRequest>& requests) override;

  // Launches in order on one stream between two events; returns the events'
  // elapsed milliseconds. Raises a kernel's dynamic shared-memory limit when a
  // launch asks for more than 48 KB.
  double run(const Program& program, const std::vector<Launch>& launches, const LaunchArguments& args) override;
  using Device::run;

  // The launches captured from the stream into a CUDA graph, instantiated once;
  // each replay() is one cuGraphLaunch between two events.
  std::unique_ptr<CapturedRun> capture(const Program& program, const std::vector<Launch>& launches,
                                       const LaunchArguments& args) override;

  // NVML's reading of this GPU (found by PCI bus id); none without NVML.
  std::optional<ClockReading> read_clocks() override;

  // Writes (cuMemsetD8Async) a buffer of twice the L2 size, allocated once, on
  // the stream the next run() uses.
  void flush_cache() override;

  // Achieved-by-the-driver occupancy of one launch: resident warps
  // (cuOccupancyMaxActiveBlocksPerMultiprocessor) / max warps per SM, 0..1.
  // Raises the dynamic shared-memory limit first, as run() does.
  double occupancy(const Program& program, const Launch& launch);

  // Theoretical occupancy of one launch from the program's resources and this
  // device's limits (occupancy.hpp), without the driver.
  std::optional<OccupancyResult> theoretical_occupancy(const Program& program, const Launch& launch) const;

  // theoretical_occupancy() and occupancy() into a leaderboard entry's resources.
  void describe_launch(const Program& program, const Launch& launch, KernelResources& resources) override;

  // ENTRY's parameter sizes from cuFuncGetParamInfo (CUDA 12.4+ drivers); none where the driver lacks it.
  std::optional<std::vector<KernelParameter>> parameters(const Program& program, const std::string& entry) override;

  // True once a sticky error was seen: every later call throws DeviceLost.
  bool lost() const { return lost_; }

 private:
  struct State;
  struct PreparedLaunches;
  friend class CudaCapturedRun;
  PreparedLaunches prepare_launches(const Program& program, const std::vector<Launch>& launches,
                                    const LaunchArguments& args);
  void enqueue(const PreparedLaunches& prepared);
  double replay_graph(void* graph_exec);
  [[noreturn]] void throw_lost() const;
  void make_current() const;
  cuda_detail::Module& module_of(const Program& program) const;

  std::string arch_of(const CompileRequest& request) const;

  int ordinal_ = 0;
  std::map<std::string, NvrtcResult> precompiled_;  // by nvrtc_cache_key()
  DeviceInfo info_;
  ArchLimits limits_;
  std::shared_ptr<cuda_detail::Context> ctx_;
  std::unique_ptr<State> state_;
  std::unique_ptr<NvmlDevice> nvml_;  // null where NVML is missing
  bool lost_ = false;
  std::string lost_reason_;
};

// The CUDA devices of this machine, without creating contexts. When there is
// no driver, or it cannot be initialised, or there is no device, pushes a note
// ("cuda: no NVIDIA driver found (libcuda.so.1: cannot open shared object
// file: No such file or directory)") and returns what it has. Never throws.
std::vector<DeviceInfo> list_cuda_devices(std::vector<std::string>& notes);

// Opens "cuda:<ordinal>". Throws BackendError (no driver, ...) or UsageError.
std::unique_ptr<Device> open_cuda_device(int ordinal);

// Compiles without a device (no driver or GPU needed): the Program's resources
// come from ptxas. request.arch must be given ("sm_90", "sm_90a"); UsageError
// otherwise. CompileError as CudaDevice::compile. The Program cannot be run.
std::unique_ptr<Program> compile_cuda_offline(const CompileRequest& request);

}  // namespace attn

// The narrow interface every compute backend (OpenCL, CUDA) implements.
//
// A Device compiles a kernel source with -D options, moves bytes, and runs a
// sequence of launches timed by the device's own events. Everything above it
// (verification, timing statistics, isolation, ranking) is backend-agnostic.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/device/tensor_map_description.hpp"

#include <nlohmann/json_fwd.hpp>

namespace attn {

// What `attn-tune devices` prints and every leaderboard records.
struct DeviceInfo {
  std::string id;        // "opencl:0:0", "cuda:0": what --device takes
  std::string backend;   // "opencl" | "cuda"
  std::string name;      // "NVIDIA H200", "cpu-skylake-avx512-..."
  std::string vendor;    // "NVIDIA Corporation", "AuthenticAMD", ...
  std::string platform;  // OpenCL platform name, or "CUDA"
  std::string kind;      // "gpu" | "cpu" | "accelerator"
  std::string driver_version;
  std::string arch;  // "sm_90" for CUDA; OpenCL: the device version string
  int compute_units = 0;
  int clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t local_mem_bytes = 0;      // most shared/local memory one block may use
  std::uint64_t cache_bytes = 0;          // L2 (CUDA) or global memory cache (OpenCL)
  std::uint64_t max_work_group_size = 0;  // threads per block
  int registers_per_sm = 0;               // CUDA only; 0 when unknown
  int max_threads_per_sm = 0;             // CUDA only
  std::uint64_t shared_mem_per_sm = 0;    // CUDA only
  bool can_capture = false;               // launches can be captured once and replayed (CUDA graphs)

  nlohmann::json to_json() const;
  static DeviceInfo from_json(const nlohmann::json& j);
};

// One -D NAME=VALUE option. Names are checked to be C identifiers.
// One -D option. Values are text: integers, and a configuration's reals,
// booleans (1/0) and identifiers ("float") alike.
struct Define {
  Define() = default;
  Define(std::string name_, long long value_) : name(std::move(name_)), value(std::to_string(value_)) {}
  Define(std::string name_, std::string value_) : name(std::move(name_)), value(std::move(value_)) {}
  std::string name;
  std::string value;
};

struct CompileRequest {
  std::filesystem::path source_path;
  std::string source_text;
  std::vector<std::filesystem::path> include_dirs;
  std::vector<Define> defines;
  // Kernel functions to look up: names, or (CUDA) name expressions of template
  // instances, "attn_fwd<64, 32, true>", resolved by NVRTC to their lowered names.
  std::vector<std::string> entries;
  std::vector<std::string> extra_options;  // spec-provided compiler flags
  std::string arch;                        // CUDA: "sm_90", "sm_90a"; empty = the device's
  // CUDA: "nvrtc" JIT-compiles device code only; "nvcc", the toolkit's, compiles a
  // file that also holds host code (a main, a launcher) to a cubin.
  std::string cuda_compiler = "nvrtc";
};

// Resource usage of one compiled kernel entry. Fields a backend cannot know stay empty.
struct KernelResources {
  std::optional<long long> registers;               // per thread (CUDA)
  std::optional<long long> private_mem_bytes;       // per work-item: OpenCL private / CUDA local (stack+spills)
  std::optional<long long> spill_store_bytes;       // CUDA, from ptxas
  std::optional<long long> spill_load_bytes;        // CUDA, from ptxas
  std::optional<long long> static_local_bytes;      // OpenCL local / CUDA static shared memory per block
  std::optional<long long> max_work_group_size;     // most threads per block this kernel can launch with
  std::optional<double> theoretical_occupancy;      // CUDA: resident warps / max warps, 0..1, from the resources
  std::optional<double> driver_occupancy;           // CUDA: the same from the driver for the actual launch
  std::optional<std::string> occupancy_limited_by;  // what binds: "registers", "shared memory", ...
  std::vector<std::string> compiler_notes;          // CUDA: ptxas' "Potential Performance Loss" notes (wgmma serialized)
  std::optional<std::string> symbol;                // CUDA: a C++ entry's mangled name (NVRTC's lowered name, or nvcc's)

  // Fields left empty are left out of the JSON; reading leaves a missing one empty.
  nlohmann::json to_json() const;
  static KernelResources from_json(const nlohmann::json& j);
};

// A device's clocks, power and temperature right after a timed sample (NVML on
// NVIDIA GPUs). Fields the device cannot say stay empty.
struct ClockReading {
  double sm_mhz = 0;
  double expected_sm_mhz = 0;  // what it should run at under load (application or max clock); 0 unknown
  std::optional<double> mem_mhz;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<std::vector<std::string>> reasons;  // why clocks are held down: "sw_power_cap", ...
};

class Program {
 public:
  virtual ~Program() = default;
  virtual const std::string& build_log() const = 0;
  virtual double compile_ms() const = 0;
  virtual KernelResources resources(const std::string& entry) const = 0;
  // Read from the on-disk compile cache instead of compiled (tuner/cache).
  virtual bool from_cache() const { return false; }
};

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual std::size_t size() const = 0;
};

// A kernel argument: a device buffer, a null pointer (an optional input
// left out: OpenCL's NULL cl_mem, CUDA's 0), bytes passed by value (the params
// struct), or a TMA tensor map of a buffer (CUDA only; encoded at launch).
struct KernelArg {
  const Buffer* buffer = nullptr;
  std::vector<std::byte> bytes;
  std::optional<TensorMapDescription> tensor_map;  // with buffer: the tensor it describes
  bool null = false;                               // a null pointer: no buffer, no bytes

  static KernelArg of(const Buffer& b) { return KernelArg{&b, {}, {}, false}; }
  static KernelArg null_pointer() { return KernelArg{nullptr, {}, {}, true}; }
  static KernelArg tensor_map_of(const Buffer& b, TensorMapDescription d) { return KernelArg{&b, {}, std::move(d), false}; }
  template <class T>
  static KernelArg value(const T& v) {
    KernelArg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
};

// One parameter of a compiled kernel, as the backend reports it (OpenCL's
// kernel argument info, CUDA's cuFuncGetParamInfo): what the spec's arguments
// are checked against before the first run. Fields it cannot say stay empty.
struct KernelParameter {
  enum class Space { unknown, global, constant, local, value };
  std::string name;              // "nb_mask1"; empty when unknown (CUDA)
  std::string type;              // "ulong", "float*"; empty when unknown
  Space space = Space::unknown;  // global/constant/local: a pointer; value: passed by value
  std::size_t bytes = 0;         // the by-value size; 0 when unknown (an OpenCL struct)
};

// One kernel launch. grid counts work-groups (blocks); OpenCL's global size is grid * block.
struct Launch {
  std::string entry;
  std::array<std::uint64_t, 3> grid{1, 1, 1};
  std::array<std::uint64_t, 3> block{1, 1, 1};
  std::uint64_t dynamic_shared_bytes = 0;
  std::array<std::uint64_t, 3> cluster{1, 1, 1};  // CUDA thread-block cluster (1x1x1: none); divides grid
};

// One argument list per launch, in launch order: a pipeline's passes may take different signatures.
using LaunchArguments = std::vector<std::vector<KernelArg>>;

// A configuration's launches recorded once (a CUDA graph) and replayed.
class CapturedRun {
 public:
  virtual ~CapturedRun() = default;
  // Replays the whole sequence between two events; device milliseconds.
  virtual double replay() = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  virtual void write(Buffer& dst, const void* src, std::size_t bytes) = 0;
  virtual void read(const Buffer& src, void* dst, std::size_t bytes) = 0;

  // Compiles; throws CompileError (with the compiler's log) on failure.
  virtual std::unique_ptr<Program> compile(const CompileRequest& request) = 0;

  // A hint that REQUESTS will be compiled soon: a backend whose compiler can
  // run in parallel (NVRTC) does the work now on every core, and compile()
  // then only loads the result. Failures are left for compile() to report.
  virtual void precompile(const std::vector<CompileRequest>& requests) { (void)requests; }

  // Runs the launches in order, launch i on ARGS[i], and returns the device time
  // of the whole sequence in milliseconds, from the device's own events.
  // Throws LaunchError; throws DeviceLost when the context is no longer usable.
  virtual double run(const Program& program, const std::vector<Launch>& launches, const LaunchArguments& args) = 0;
  // Every launch on the same ARGS.
  double run(const Program& program, const std::vector<Launch>& launches, const std::vector<KernelArg>& args) {
    return run(program, launches, LaunchArguments(launches.size(), args));
  }

  // Fills RESOURCES' occupancy figures for LAUNCH of PROGRAM on this device;
  // backends without the notion leave them empty.
  virtual void describe_launch(const Program& program, const Launch& launch, KernelResources& resources) {
    (void)program, (void)launch, (void)resources;
  }

  // ENTRY's parameters in PROGRAM, in order; none where the backend cannot say
  // (then the arguments are not checked before the run).
  virtual std::optional<std::vector<KernelParameter>> parameters(const Program& program, const std::string& entry) {
    (void)program, (void)entry;
    return std::nullopt;
  }

  // Whether capture() works here (CUDA graphs): the one query, from the device's description, so that a
  // device id not opened yet answers the same (backend/registry.hpp's find_device).
  bool can_capture() const { return info().can_capture; }

  // Records LAUNCHES with ARGS (one list per launch) once for replay (their values are copied in).
  // Throws UsageError where the backend has no such thing (can_capture()).
  virtual std::unique_ptr<CapturedRun> capture(const Program& program, const std::vector<Launch>& launches,
                                               const LaunchArguments& args);

  // The clocks now; none where the device cannot say (no NVML, OpenCL).
  virtual std::optional<ClockReading> read_clocks() { return std::nullopt; }

  // Evicts the device's last-level cache (writes a buffer larger than it), so the
  // next run starts cold, as an inference step does.
  virtual void flush_cache() = 0;
};

}  // namespace attn

#include "tuner/backend/cuda/cuda_device.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/cuda/cuda_compile.hpp"
#include "tuner/backend/cuda/cuda_driver.hpp"
#include "tuner/backend/cuda/tensor_map.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/parallel_for.hpp"

namespace attn {
namespace cuda_detail {

// A retained primary context. Released when the device and every program and
// buffer made from it are gone.
struct Context {
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext ctx = nullptr;

  explicit Context(int ord) : ordinal(ord) {
    ATTN_CU(cuDeviceGet(&device, ordinal));
    ATTN_CU(cuDevicePrimaryCtxRetain(&ctx, device));
  }
  ~Context() {
    if (ctx) ATTN_CU_NOTHROW(cuDevicePrimaryCtxRelease(device));
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void make_current() const { ATTN_CU(cuCtxSetCurrent(ctx)); }
  void make_current_nothrow() const noexcept { ATTN_CU_NOTHROW(cuCtxSetCurrent(ctx)); }
};

// A loaded module and its entries' functions.
struct Module {
  std::shared_ptr<Context> ctx;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;    // by entry index
  std::vector<int> max_dynamic_shared;  // current CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  std::vector<int> max_threads;         // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  std::vector<int> static_shared;       // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  std::vector<std::optional<std::vector<std::size_t>>> param_sizes;  // when the driver can say

  ~Module() {
    if (module) {
      ctx->make_current_nothrow();
      ATTN_CU_NOTHROW(cuModuleUnload(module));
    }
  }
};

}  // namespace cuda_detail

using cuda_detail::Context;
using cuda_detail::Module;

namespace {

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(std::shared_ptr<Context> ctx, std::size_t bytes) : ctx_(std::move(ctx)), bytes_(bytes) {
    if (bytes_ > 0) ATTN_CU(cuMemAlloc(&ptr_, bytes_));
  }
  ~CudaBuffer() override {
    if (ptr_) {
      ctx_->make_current_nothrow();
      ATTN_CU_NOTHROW(cuMemFree(ptr_));
    }
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  std::size_t size() const override { return bytes_; }
  CUdeviceptr ptr() const { return ptr_; }
  const std::shared_ptr<Context>& ctx() const { return ctx_; }

 private:
  std::shared_ptr<Context> ctx_;
  std::size_t bytes_ = 0;
  CUdeviceptr ptr_ = 0;
};

int attribute(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  ATTN_CU(cuDeviceGetAttribute(&v, a, dev));
  return v;
}

// "580.159.04" from the kernel module, when it is there to read. Its line reads
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  <date>" or
// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...".
std::string kernel_module_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return {};
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    const bool looks_like_version = w.find('.') != std::string::npos &&
                                    std::isdigit(static_cast<unsigned char>(w.front())) &&
                                    w.find_first_not_of("0123456789.") == std::string::npos;
    if (looks_like_version) return w;
  }
  return {};
}

DeviceInfo query_info(int ordinal) {
  const cu::DriverApi& api = cu::driver();
  CUdevice dev = 0;
  ATTN_CU(cuDeviceGet(&dev, ordinal));
  DeviceInfo info;
  info.id = fmt::format("cuda:{}", ordinal);
  info.backend = "cuda";
  char name[256] = {};
  ATTN_CU(cuDeviceGetName(name, sizeof name - 1, dev));
  info.name = name;
  info.vendor = "NVIDIA Corporation";
  info.platform = "CUDA";
  info.kind = "gpu";
  info.can_capture = true;
  const std::string cuda_version = fmt::format("CUDA {}.{}", api.version / 1000, (api.version % 1000) / 10);
  const std::string module = kernel_module_version();
  info.driver_version = module.empty() ? cuda_version : fmt::format("{} ({})", module, cuda_version);
  const int major = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  const int minor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.arch = fmt::format("sm_{}{}", major, minor);
  info.compute_units = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.clock_mhz = attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  std::size_t total = 0;
  ATTN_CU(cuDeviceTotalMem(&total, dev));
  info.global_mem_bytes = total;
  info.local_mem_bytes = static_cast<std::uint64_t>(attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  info.cache_bytes = static_cast<std::uint64_t>(attribute(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  info.max_work_group_size = static_cast<std::uint64_t>(attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info.registers_per_sm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.max_threads_per_sm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.shared_mem_per_sm =
      static_cast<std::uint64_t>(attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  return info;
}

int device_count() {
  int n = 0;
  ATTN_CU(cuDeviceGetCount(&n));
  return n;
}

int func_attribute(CUfunction f, CUfunction_attribute a) {
  int v = 0;
  ATTN_CU(cuFuncGetAttribute(&v, a, f));
  return v;
}

// The kernel's parameter sizes, when the driver can tell (CUDA 12.4+).
std::optional<std::vector<std::size_t>> param_sizes(CUfunction f) {
  const cu::DriverApi& api = cu::driver();
  if (!api.cuFuncGetParamInfo) return std::nullopt;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < 1024; ++i) {
    std::size_t offset = 0, size = 0;
    const CUresult r = api.cuFuncGetParamInfo(f, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) return sizes;  // past the last parameter
    if (r != CUDA_SUCCESS) return std::nullopt;
    sizes.push_back(size);
  }
  return std::nullopt;
}

unsigned int dim(std::uint64_t v, const char* what, int axis, const std::string& entry) {
  if (v == 0 || v > UINT_MAX)
    throw LaunchError(fmt::format("cuda: launch of '{}': {}[{}] = {} is out of range", entry, what, axis, v));
  return static_cast<unsigned int>(v);
}

}  // namespace

// ---- CudaProgram -------------------------------------------------------------

CudaProgram::~CudaProgram() = default;

KernelResources CudaProgram::resources(const std::string& entry) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i] == entry) return resources_[i];
  throw BackendError(fmt::format("cuda: the program has no entry '{}'", entry));
}

std::unique_ptr<Program> compile_cuda_offline(const CompileRequest& request) {
  if (request.arch.empty()) throw UsageError("cuda: compiling without a device needs a target architecture (--arch sm_90)");
  std::unique_ptr<CudaProgram> p(new CudaProgram());
  p->result_ = cuda_compile(request);
  p->entries_ = request.entries;
  for (const auto& entry : p->entries_) p->resources_.push_back(entry_resources(p->result_, entry));
  return p;
}

// ---- CudaDevice --------------------------------------------------------------

struct CudaDevice::State {
  std::shared_ptr<Context> ctx;
  CUstream stream = nullptr;
  CUevent start = nullptr;
  CUevent stop = nullptr;
  CUdeviceptr flush = 0;
  std::size_t flush_bytes = 0;
  unsigned char flush_value = 0;

  ~State() {
    if (!ctx) return;
    ctx->make_current_nothrow();
    if (flush) ATTN_CU_NOTHROW(cuMemFree(flush));
    if (start) ATTN_CU_NOTHROW(cuEventDestroy(start));
    if (stop) ATTN_CU_NOTHROW(cuEventDestroy(stop));
    if (stream) ATTN_CU_NOTHROW(cuStreamDestroy(stream));
  }
};

namespace {

// Runs f; a DeviceLost marks the device lost for good.
template <class F>
auto guarded(bool& lost, std::string& reason, const std::string& id, F&& f) -> decltype(f()) {
  if (lost) throw DeviceLost(fmt::format("{}: the device was lost earlier: {}", id, reason));
  try {
    return f();
  } catch (const DeviceLost& e) {
    lost = true;
    reason = e.what();
    throw;
  }
}

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  cu::driver();  // BackendError saying why there is no driver
  const int n = device_count();
  if (ordinal < 0 || ordinal >= n)
    throw UsageError(
        fmt::format("no CUDA device cuda:{} (this machine has {} CUDA device{})", ordinal, n, n == 1 ? "" : "s"));
  info_ = query_info(ordinal);
  limits_ = arch_limits_for(info_);
  ctx_ = std::make_shared<Context>(ordinal);
  state_ = std::make_unique<State>();
  state_->ctx = ctx_;
  ctx_->make_current();
  // A blocking stream: ordered with the synchronous copies of write()/read().
  ATTN_CU(cuStreamCreate(&state_->stream, CU_STREAM_DEFAULT));
  ATTN_CU(cuEventCreate(&state_->start, CU_EVENT_DEFAULT));
  ATTN_CU(cuEventCreate(&state_->stop, CU_EVENT_DEFAULT));

  char bus_id[64] = {};
  std::string why;
  if (cu::driver().cuDeviceGetPCIBusId(bus_id, sizeof bus_id - 1, ctx_->device) == CUDA_SUCCESS)
    nvml_ = NvmlDevice::open(bus_id, &why);
  else why = "cuDeviceGetPCIBusId failed";
  if (!nvml_) spdlog::info("{}: no clock readings (NVML: {})", info_.id, why);
}

CudaDevice::~CudaDevice() = default;

void CudaDevice::throw_lost() const {
  throw DeviceLost(fmt::format("{}: the device was lost earlier: {}", info_.id, lost_reason_));
}

void CudaDevice::make_current() const { ctx_->make_current(); }

std::unique_ptr<Buffer> CudaDevice::allocate(std::size_t bytes) {
  return guarded(lost_, lost_reason_, info_.id, [&]() -> std::unique_ptr<Buffer> {
    make_current();
    return std::make_unique<CudaBuffer>(ctx_, bytes);
  });
}

namespace {
const CudaBuffer& as_cuda(const Buffer& b, const std::shared_ptr<Context>& ctx, const char* what) {
  const auto* cb = dynamic_cast<const CudaBuffer*>(&b);
  if (!cb || cb->ctx() != ctx)
    throw BackendError(fmt::format("cuda: {}: the buffer was not allocated on this device", what));
  return *cb;
}
}  // namespace

void CudaDevice::write(Buffer& dst, const void* src, std::size_t bytes) {
  guarded(lost_, lost_reason_, info_.id, [&] {
    const CudaBuffer& b = as_cuda(dst, ctx_, "write");
    if (bytes > b.size()) throw BackendError(fmt::format("cuda: write of {} bytes into a buffer of {}", bytes, b.size()));
    if (bytes == 0) return;
    make_current();
    ATTN_CU(cuMemcpyHtoD(b.ptr(), src, bytes));
  });
}

void CudaDevice::read(const Buffer& src, void* dst, std::size_t bytes) {
  guarded(lost_, lost_reason_, info_.id, [&] {
    const CudaBuffer& b = as_cuda(src, ctx_, "read");
    if (bytes > b.size()) throw BackendError(fmt::format("cuda: read of {} bytes from a buffer of {}", bytes, b.size()));
    if (bytes == 0) return;
    make_current();
    ATTN_CU(cuMemcpyDtoH(dst, b.ptr(), bytes));
  });
}

namespace {

// Requests that differ only where NVRTC cannot see it compile the same.
std::string nvrtc_cache_key(const CompileRequest& r, const std::string& arch) {
  std::string key = arch + "\n" + r.cuda_compiler + "\n" + std::to_string(std::hash<std::string>{}(r.source_text)) + "\n" +
                    r.source_path.string();
  for (const auto& d : r.defines) key += fmt::format("\n-D{}={}", d.name, d.value);
  for (const auto& i : r.include_dirs) key += "\n-I" + i.string();
  for (const auto& o : r.extra_options) key += "\n" + o;
  return key;
}

}  // namespace

std::string CudaDevice::arch_of(const CompileRequest& request) const {
  return request.arch.empty() ? info_.arch : request.arch;
}

void CudaDevice::precompile(const std::vector<CompileRequest>& requests) {
  std::vector<const CompileRequest*> todo;
  for (const auto& r : requests)
    if (!precompiled_.contains(nvrtc_cache_key(r, arch_of(r)))) todo.push_back(&r);
  std::vector<std::optional<NvrtcResult>> results(todo.size());
  parallel_for(todo.size(), [&](std::size_t i) {
    try {
      results[i] = cuda_compile(*todo[i], arch_of(*todo[i]));
    } catch (const std::exception&) {
      // compile() compiles it again and reports the error with its log.
    }
  });
  for (std::size_t i = 0; i < todo.size(); ++i)
    if (results[i]) precompiled_.emplace(nvrtc_cache_key(*todo[i], arch_of(*todo[i])), std::move(*results[i]));
}

std::unique_ptr<Program> CudaDevice::compile(const CompileRequest& request) {
  if (lost_) throw_lost();
  std::unique_ptr<CudaProgram> p(new CudaProgram());
  const std::string arch = arch_of(request);
  if (auto it = precompiled_.find(nvrtc_cache_key(request, arch)); it != precompiled_.end()) {
    p->result_ = std::move(it->second);
    precompiled_.erase(it);
  } else {
    p->result_ = cuda_compile(request, arch);
  }
  p->entries_ = request.entries;

  return guarded(lost_, lost_reason_, info_.id, [&]() -> std::unique_ptr<Program> {
    make_current();
    auto mod = std::make_shared<Module>();
    mod->ctx = ctx_;

    // The JIT's error log says why a PTX image (or a CUBIN) is refused.
    std::string error_log(16384, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(error_log.size()))};
    const CUresult r = cu::driver().cuModuleLoadDataEx(&mod->module, p->result_.image.data(), 2, opts, values);
    if (r != CUDA_SUCCESS) {
      mod->module = nullptr;
      error_log.resize(std::min(error_log.find('\0'), error_log.size()));
      const std::string what = cu::describe_error(r, "cuModuleLoadDataEx(&module, image, ...)", __FILE__, __LINE__);
      if (cu::is_sticky_error(r)) throw DeviceLost(what + "; the CUDA context is no longer usable");
      std::string log = p->result_.log;
      if (!error_log.empty()) log += (log.empty() ? "" : "\n") + error_log;
      throw CompileError(fmt::format("{} ({} code for a {} device, {})", what, p->result_.arch, info_.arch, info_.name),
                         log);
    }
    for (const auto& entry : p->entries_) {
      CUfunction f = nullptr;
      const std::string symbol = p->result_.symbol(entry);
      const CUresult rf = cu::driver().cuModuleGetFunction(&f, mod->module, symbol.c_str());
      if (rf != CUDA_SUCCESS) {
        if (cu::is_sticky_error(rf)) cu::throw_error(rf, "cuModuleGetFunction", __FILE__, __LINE__, cu::Failure::backend);
        throw CompileError(fmt::format("cuda: no kernel '{}' in the module ({}); entries must be "
                                       "extern \"C\" or C++ __global__ functions or template instances (\"f<64, true>\")",
                                       entry, cu::error_name(rf)),
                           p->result_.log);
      }
      mod->functions.push_back(f);
      mod->max_dynamic_shared.push_back(func_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
      mod->max_threads.push_back(func_attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
      mod->static_shared.push_back(func_attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
      mod->param_sizes.push_back(param_sizes(f));

      KernelResources res = entry_resources(p->result_, entry);
      res.registers = func_attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
      res.private_mem_bytes = func_attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
      res.static_local_bytes = mod->static_shared.back();
      res.max_work_group_size = mod->max_threads.back();
      p->resources_.push_back(res);
    }
    p->module_ = std::move(mod);
    return std::move(p);
  });
}

std::optional<std::vector<KernelParameter>> CudaDevice::parameters(const Program& program, const std::string& entry) {
  const auto* cp = dynamic_cast<const CudaProgram*>(&program);
  if (!cp || !cp->module_) return std::nullopt;
  const auto& entries = cp->entries();
  const auto at = std::find(entries.begin(), entries.end(), entry);
  if (at == entries.end()) return std::nullopt;
  const auto& sizes = cp->module_->param_sizes[static_cast<std::size_t>(at - entries.begin())];
  if (!sizes) return std::nullopt;
  std::vector<KernelParameter> out;
  for (std::size_t size : *sizes) {
    KernelParameter p;
    p.bytes = size;  // a pointer and a 64-bit scalar look alike here: sizes only
    out.push_back(std::move(p));
  }
  return out;
}

cuda_detail::Module& CudaDevice::module_of(const Program& program) const {
  const auto* cp = dynamic_cast<const CudaProgram*>(&program);
  if (!cp) throw LaunchError("cuda: the program was not compiled by the CUDA backend");
  if (!cp->module_) throw LaunchError("cuda: the program was compiled offline; it cannot be run");
  if (cp->module_->ctx != ctx_)
    throw LaunchError(fmt::format("cuda: the program was compiled for another device than {}", info_.id));
  return *cp->module_;
}

namespace {

// The function for a launch, checked against its limits, with its dynamic
// shared-memory limit raised when the launch needs more than it allows (48 KB
// less the static shared memory until raised).
CUfunction prepare(Module& m, const std::vector<std::string>& entries, const Launch& launch, const DeviceInfo& info) {
  const auto it = std::find(entries.begin(), entries.end(), launch.entry);
  if (it == entries.end())
    throw LaunchError(
        fmt::format("cuda: the program has no entry '{}' (compiled entries: {})", launch.entry, fmt::join(entries, ", ")));
  const std::size_t i = static_cast<std::size_t>(it - entries.begin());
  CUfunction f = m.functions[i];

  const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  if (threads > static_cast<std::uint64_t>(m.max_threads[i]))
    throw LaunchError(
        fmt::format("cuda: launch of '{}': {} threads per block exceed the kernel's "
                    "limit of {} (registers, __launch_bounds__)",
                    launch.entry, threads, m.max_threads[i]));
  if (launch.dynamic_shared_bytes > static_cast<std::uint64_t>(m.max_dynamic_shared[i])) {
    const std::uint64_t total = launch.dynamic_shared_bytes + static_cast<std::uint64_t>(m.static_shared[i]);
    if (total > info.local_mem_bytes || launch.dynamic_shared_bytes > INT_MAX)
      throw LaunchError(
          fmt::format("cuda: launch of '{}': {} bytes of dynamic shared memory (plus {} "
                      "static) exceed the {} bytes a block may use on {}",
                      launch.entry, launch.dynamic_shared_bytes, m.static_shared[i], info.local_mem_bytes, info.name));
    const int bytes = static_cast<int>(launch.dynamic_shared_bytes);
    ATTN_CU_LAUNCH(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes));
    m.max_dynamic_shared[i] = bytes;
  }
  return f;
}

}  // namespace

struct CudaDevice::PreparedLaunches {
  struct One {
    CUfunction f;
    unsigned int g[3], b[3];
    unsigned int smem;
    unsigned int cluster[3];  // 1, 1, 1: a plain launch
    std::size_t first_param;  // this launch's parameters: params[first_param...]
  };
  std::vector<One> launches;
  std::vector<CUdeviceptr> pointers;     // params point into these, the tensor maps and the args' bytes
  std::vector<CUtensorMap> tensor_maps;  // reserved once: never moved after params point into it
  std::vector<void*> params;             // every launch's, one after the other
};

CudaDevice::PreparedLaunches CudaDevice::prepare_launches(const Program& program, const std::vector<Launch>& launches,
                                                          const LaunchArguments& launch_args) {
  Module& m = module_of(program);
  const auto& entries = static_cast<const CudaProgram&>(program).entries();
  make_current();
  if (launch_args.size() != launches.size())
    throw LaunchError(fmt::format("cuda: {} launches, {} argument lists", launches.size(), launch_args.size()));

  // Kernel parameters: a pointer to each argument's value, every launch's list one after the other.
  PreparedLaunches out;
  std::size_t total = 0;
  for (const auto& args : launch_args) total += args.size();
  out.pointers.assign(total, 0);
  out.params.assign(total, nullptr);
  std::vector<std::size_t> sizes(total, 0);
  out.tensor_maps.reserve(total);
  std::vector<std::size_t> first(launches.size(), 0);
  std::size_t at = 0;
  for (std::size_t l = 0; l < launch_args.size(); ++l) {
    first[l] = at;
    const auto& args = launch_args[l];
    for (std::size_t a = 0; a < args.size(); ++a, ++at) {
      if (args[a].buffer && args[a].tensor_map) {
        const auto* b = dynamic_cast<const CudaBuffer*>(args[a].buffer);
        if (!b || b->ctx() != ctx_)
          throw LaunchError(
              fmt::format("cuda: argument {} is a tensor map of a buffer of another device than {}", a, info_.id));
        const cu::TensorMapEncoding enc = cu::tensor_map_encoding(*args[a].tensor_map, b->ptr(), b->size());
        cu::encode_tensor_map(enc, args[a].tensor_map->name, &out.tensor_maps.emplace_back());
        out.params[at] = &out.tensor_maps.back();
        sizes[at] = sizeof(CUtensorMap);
      } else if (args[a].null) {
        out.pointers[at] = 0;  // an optional input left out: a null device pointer
        out.params[at] = &out.pointers[at];
        sizes[at] = sizeof(CUdeviceptr);
      } else if (args[a].buffer) {
        const auto* b = dynamic_cast<const CudaBuffer*>(args[a].buffer);
        if (!b || b->ctx() != ctx_)
          throw LaunchError(fmt::format("cuda: argument {} is a buffer of another device than {}", a, info_.id));
        out.pointers[at] = b->ptr();
        out.params[at] = &out.pointers[at];
        sizes[at] = sizeof(CUdeviceptr);
      } else if (!args[a].bytes.empty()) {
        out.params[at] = const_cast<std::byte*>(args[a].bytes.data());
        sizes[at] = args[a].bytes.size();
      } else {
        throw LaunchError(fmt::format("cuda: argument {} is neither a buffer nor a value", a));
      }
    }
  }

  out.launches.reserve(launches.size());
  for (std::size_t n = 0; n < launches.size(); ++n) {
    const Launch& l = launches[n];
    const auto& args = launch_args[n];
    PreparedLaunches::One p{};
    p.f = prepare(m, entries, l, info_);
    p.first_param = first[n];
    const std::size_t i = static_cast<std::size_t>(std::find(entries.begin(), entries.end(), l.entry) - entries.begin());
    if (const auto& want = m.param_sizes[i]) {
      if (want->size() != args.size())
        throw LaunchError(fmt::format("cuda: kernel '{}' takes {} arguments, {} given", l.entry, want->size(), args.size()));
      for (std::size_t a = 0; a < args.size(); ++a)
        if ((*want)[a] != sizes[first[n] + a])
          throw LaunchError(
              fmt::format("cuda: argument {} of '{}' is {} bytes; the kernel's parameter "
                          "is {} bytes",
                          a, l.entry, sizes[first[n] + a], (*want)[a]));
    }
    for (int d = 0; d < 3; ++d) {
      p.g[d] = dim(l.grid[static_cast<std::size_t>(d)], "grid", d, l.entry);
      p.b[d] = dim(l.block[static_cast<std::size_t>(d)], "block", d, l.entry);
    }
    p.smem = static_cast<unsigned int>(l.dynamic_shared_bytes);
    for (int d = 0; d < 3; ++d) p.cluster[d] = dim(l.cluster[static_cast<std::size_t>(d)], "cluster", d, l.entry);
    if (p.cluster[0] * p.cluster[1] * p.cluster[2] > 1) {
      if (!cu::driver().cuLaunchKernelEx)
        throw LaunchError(
            fmt::format("cuda: launch of '{}' in clusters of {}x{}x{} blocks needs cuLaunchKernelEx "
                        "(CUDA 12 or later; driver version {})",
                        l.entry, p.cluster[0], p.cluster[1], p.cluster[2], cu::driver().version));
      // clusters of more than 8 blocks are "non-portable": allowed per function
      if (p.cluster[0] * p.cluster[1] * p.cluster[2] > 8)
        ATTN_CU_LAUNCH(cuFuncSetAttribute(p.f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    }
    out.launches.push_back(p);
  }
  return out;
}

void CudaDevice::enqueue(const PreparedLaunches& prepared) {
  for (const auto& p : prepared.launches) {
    void** params = const_cast<void**>(prepared.params.data() + p.first_param);
    if (p.cluster[0] * p.cluster[1] * p.cluster[2] == 1) {
      ATTN_CU_LAUNCH(
          cuLaunchKernel(p.f, p.g[0], p.g[1], p.g[2], p.b[0], p.b[1], p.b[2], p.smem, state_->stream, params, nullptr));
      continue;
    }
    CUlaunchAttribute cluster{};
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = p.cluster[0];
    cluster.value.clusterDim.y = p.cluster[1];
    cluster.value.clusterDim.z = p.cluster[2];
    CUlaunchConfig config{};
    config.gridDimX = p.g[0];
    config.gridDimY = p.g[1];
    config.gridDimZ = p.g[2];
    config.blockDimX = p.b[0];
    config.blockDimY = p.b[1];
    config.blockDimZ = p.b[2];
    config.sharedMemBytes = p.smem;
    config.hStream = state_->stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    ATTN_CU_LAUNCH(cuLaunchKernelEx(&config, p.f, params, nullptr));
  }
}

double CudaDevice::run(const Program& program, const std::vector<Launch>& launches, const LaunchArguments& args) {
  return guarded(lost_, lost_reason_, info_.id, [&]() -> double {
    if (launches.empty()) {
      module_of(program);
      return 0.0;
    }
    const PreparedLaunches prepared = prepare_launches(program, launches, args);
    CUstream s = state_->stream;
    ATTN_CU(cuEventRecord(state_->start, s));
    enqueue(prepared);
    ATTN_CU(cuEventRecord(state_->stop, s));
    // Kernel faults surface here: sticky ones as DeviceLost.
    ATTN_CU_LAUNCH(cuEventSynchronize(state_->stop));
    float ms = 0;
    ATTN_CU(cuEventElapsedTime(&ms, state_->start, state_->stop));
    return static_cast<double>(ms);
  });
}

// A captured graph; replays go through the device (its stream, events and
// lost-context guard).
class CudaCapturedRun final : public CapturedRun {
 public:
  CudaCapturedRun(CudaDevice& device, std::shared_ptr<Context> ctx, CUgraph graph, CUgraphExec exec)
      : device_(device), ctx_(std::move(ctx)), graph_(graph), exec_(exec) {}
  ~CudaCapturedRun() override {
    ctx_->make_current_nothrow();
    if (exec_) ATTN_CU_NOTHROW(cuGraphExecDestroy(exec_));
    if (graph_) ATTN_CU_NOTHROW(cuGraphDestroy(graph_));
  }
  CudaCapturedRun(const CudaCapturedRun&) = delete;
  CudaCapturedRun& operator=(const CudaCapturedRun&) = delete;

  double replay() override { return device_.replay_graph(exec_); }

 private:
  CudaDevice& device_;
  std::shared_ptr<Context> ctx_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

std::unique_ptr<CapturedRun> CudaDevice::capture(const Program& program, const std::vector<Launch>& launches,
                                                 const LaunchArguments& args) {
  return guarded(lost_, lost_reason_, info_.id, [&]() -> std::unique_ptr<CapturedRun> {
    const PreparedLaunches prepared = prepare_launches(program, launches, args);
    CUstream s = state_->stream;
    ATTN_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    CUgraph graph = nullptr;
    try {
      enqueue(prepared);
    } catch (const DeviceLost&) {
      throw;
    } catch (...) {
      // End the capture so the stream is usable again; the partial graph is dropped.
      if (cu::driver().cuStreamEndCapture(s, &graph) == CUDA_SUCCESS && graph) ATTN_CU_NOTHROW(cuGraphDestroy(graph));
      throw;
    }
    ATTN_CU_LAUNCH(cuStreamEndCapture(s, &graph));
    CUgraphExec exec = nullptr;
    const CUresult r = cu::driver().cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (r != CUDA_SUCCESS) {
      ATTN_CU_NOTHROW(cuGraphDestroy(graph));
      cu::throw_error(r, "cuGraphInstantiateWithFlags(&exec, graph, 0)", __FILE__, __LINE__, cu::Failure::launch);
    }
    return std::make_unique<CudaCapturedRun>(*this, ctx_, graph, exec);
  });
}

double CudaDevice::replay_graph(void* graph_exec) {
  return guarded(lost_, lost_reason_, info_.id, [&]() -> double {
    make_current();
    CUstream s = state_->stream;
    ATTN_CU(cuEventRecord(state_->start, s));
    ATTN_CU_LAUNCH(cuGraphLaunch(static_cast<CUgraphExec>(graph_exec), s));
    ATTN_CU(cuEventRecord(state_->stop, s));
    ATTN_CU_LAUNCH(cuEventSynchronize(state_->stop));
    float ms = 0;
    ATTN_CU(cuEventElapsedTime(&ms, state_->start, state_->stop));
    return static_cast<double>(ms);
  });
}

std::optional<ClockReading> CudaDevice::read_clocks() {
  if (!nvml_) return std::nullopt;
  return nvml_->read();
}

void CudaDevice::flush_cache() {
  guarded(lost_, lost_reason_, info_.id, [&] {
    make_current();
    if (!state_->flush) {
      const std::size_t l2 = info_.cache_bytes > 0 ? info_.cache_bytes : std::size_t(64) << 20;
      const std::size_t bytes = std::max<std::size_t>(2 * l2, std::size_t(1) << 20);
      ATTN_CU(cuMemAlloc(&state_->flush, bytes));
      state_->flush_bytes = bytes;
    }
    ++state_->flush_value;
    ATTN_CU(cuMemsetD8Async(state_->flush, state_->flush_value, state_->flush_bytes, state_->stream));
  });
}

double CudaDevice::occupancy(const Program& program, const Launch& launch) {
  return guarded(lost_, lost_reason_, info_.id, [&]() -> double {
    Module& m = module_of(program);
    const auto& entries = static_cast<const CudaProgram&>(program).entries();
    make_current();
    CUfunction f = prepare(m, entries, launch, info_);
    const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    int blocks = 0;
    ATTN_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, static_cast<int>(threads),
                                                        static_cast<std::size_t>(launch.dynamic_shared_bytes)));
    const int warps_per_block = static_cast<int>((threads + 31) / 32);
    const int max_warps = info_.max_threads_per_sm / 32;
    return max_warps > 0 ? static_cast<double>(blocks * warps_per_block) / max_warps : 0.0;
  });
}

std::optional<OccupancyResult> CudaDevice::theoretical_occupancy(const Program& program, const Launch& launch) const {
  return attn::theoretical_occupancy(limits_, program.resources(launch.entry), launch);
}

// ---- registration ---------------------------------------------------------------

void CudaDevice::describe_launch(const Program& program, const Launch& launch, KernelResources& resources) {
  if (const auto t = theoretical_occupancy(program, launch)) {
    resources.theoretical_occupancy = t->occupancy;
    resources.occupancy_limited_by = t->limited_by;
  }
  resources.driver_occupancy = occupancy(program, launch);
}

std::vector<DeviceInfo> list_cuda_devices(std::vector<std::string>& notes) {
  std::vector<DeviceInfo> out;
  try {
    std::string why;
    if (!driver_available(&why)) {
      notes.push_back(driver_library_found() ? "cuda: the NVIDIA driver cannot be used (" + why + ")"
                                             : "cuda: no NVIDIA driver found (" + why + ")");
      return out;
    }
    const int n = device_count();
    if (n == 0) notes.push_back("cuda: the NVIDIA driver sees no CUDA device");
    for (int i = 0; i < n; ++i) {
      try {
        out.push_back(query_info(i));
      } catch (const std::exception& e) {
        notes.push_back(fmt::format("cuda:{}: {}", i, e.what()));
      }
    }
  } catch (const std::exception& e) {
    notes.push_back(e.what());
  }
  return out;
}

std::unique_ptr<Device> open_cuda_device(int ordinal) { return std::make_unique<CudaDevice>(ordinal); }

}  // namespace attn

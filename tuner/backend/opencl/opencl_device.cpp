#include "tuner/backend/opencl/opencl_device.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/opencl/build_log.hpp"
#include "tuner/backend/opencl/cl_call.hpp"
#include "tuner/cache/cache_key.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/console_chatter.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"
#include "tuner/core/sha256.hpp"

namespace attn {
namespace {

std::vector<cl_platform_id> platforms() {
  cl_uint n = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &n);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || n == 0) return {};
  ATTN_CL(status);
  std::vector<cl_platform_id> ids(n);
  ATTN_CL(clGetPlatformIDs(n, ids.data(), nullptr));
  return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint n = 0;
  const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
  if (status == CL_DEVICE_NOT_FOUND || n == 0) return {};
  ATTN_CL(status);
  std::vector<cl_device_id> ids(n);
  ATTN_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr));
  return ids;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t size = 0;
  ATTN_CL(clGetPlatformInfo(p, what, 0, nullptr, &size));
  std::string s(size, '\0');
  ATTN_CL(clGetPlatformInfo(p, what, size, s.data(), nullptr));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t size = 0;
  ATTN_CL(clGetDeviceInfo(d, what, 0, nullptr, &size));
  std::string s(size, '\0');
  ATTN_CL(clGetDeviceInfo(d, what, size, s.data(), nullptr));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T value{};
  ATTN_CL(clGetDeviceInfo(d, what, sizeof value, &value, nullptr));
  return value;
}

DeviceInfo describe(cl_platform_id p, cl_device_id d, int pi, int di) {
  DeviceInfo info;
  info.id = fmt::format("opencl:{}:{}", pi, di);
  info.backend = "opencl";
  info.name = device_string(d, CL_DEVICE_NAME);
  info.vendor = device_string(d, CL_DEVICE_VENDOR);
  info.platform = platform_string(p, CL_PLATFORM_NAME);
  info.driver_version = device_string(d, CL_DRIVER_VERSION);
  info.arch = device_string(d, CL_DEVICE_VERSION);
  const auto type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
  info.kind = (type & CL_DEVICE_TYPE_GPU) ? "gpu" : (type & CL_DEVICE_TYPE_CPU) ? "cpu" : "accelerator";
  info.compute_units = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.clock_mhz = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  info.global_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.local_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  info.cache_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  info.max_work_group_size = device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  return info;
}

// The size of a by-value OpenCL C type named TYPE (CL_KERNEL_ARG_TYPE_NAME): scalars and their vectors
// (a 3-vector takes 4 elements' room); 0 for what it cannot tell (a struct, a typedef).
std::size_t opencl_type_bytes(std::string type, std::size_t address_bytes) {
  while (!type.empty() && type.back() == ' ') type.pop_back();
  static const std::map<std::string, std::size_t> scalars = {
      {"char", 1},         {"uchar", 1},     {"unsigned char", 1}, {"bool", 1},     {"short", 2},
      {"ushort", 2},       {"half", 2},      {"int", 4},           {"uint", 4},     {"float", 4},
      {"unsigned int", 4}, {"long", 8},      {"ulong", 8},         {"double", 8},   {"unsigned long", 8},
      {"size_t", 0},       {"ptrdiff_t", 0}, {"intptr_t", 0},      {"uintptr_t", 0}};
  if (const auto it = scalars.find(type); it != scalars.end()) return it->second ? it->second : address_bytes;
  std::size_t digits = type.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(type[digits - 1]))) --digits;
  if (digits == type.size() || digits == 0) return 0;
  const int n = std::atoi(type.c_str() + digits);
  const auto base = scalars.find(type.substr(0, digits));
  if (base == scalars.end() || !(n == 2 || n == 3 || n == 4 || n == 8 || n == 16)) return 0;
  return (base->second ? base->second : address_bytes) * std::size_t(n == 3 ? 4 : n);
}

// KERNEL's parameters: their count always; names, types and address spaces when the program was built with
// -cl-kernel-arg-info (a cached binary may not have them: those fields stay empty).
std::vector<KernelParameter> kernel_parameters(cl_kernel kernel, std::size_t address_bytes) {
  cl_uint n = 0;
  ATTN_CL(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr));
  std::vector<KernelParameter> out(n);
  auto text = [&](cl_uint i, cl_kernel_arg_info what, std::string& into) {
    std::size_t size = 0;
    if (clGetKernelArgInfo(kernel, i, what, 0, nullptr, &size) != CL_SUCCESS) return false;
    into.assign(size, '\0');
    if (clGetKernelArgInfo(kernel, i, what, size, into.data(), nullptr) != CL_SUCCESS) return false;
    while (!into.empty() && into.back() == '\0') into.pop_back();
    return true;
  };
  for (cl_uint i = 0; i < n; ++i) {
    KernelParameter& p = out[i];
    cl_kernel_arg_address_qualifier space = 0;
    if (clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, nullptr) != CL_SUCCESS)
      continue;  // no argument info in this binary
    text(i, CL_KERNEL_ARG_NAME, p.name);
    text(i, CL_KERNEL_ARG_TYPE_NAME, p.type);
    const bool pointer = p.type.find('*') != std::string::npos;
    switch (space) {
      case CL_KERNEL_ARG_ADDRESS_GLOBAL: p.space = KernelParameter::Space::global; break;
      case CL_KERNEL_ARG_ADDRESS_CONSTANT: p.space = KernelParameter::Space::constant; break;
      case CL_KERNEL_ARG_ADDRESS_LOCAL: p.space = KernelParameter::Space::local; break;
      default: p.space = pointer ? KernelParameter::Space::unknown : KernelParameter::Space::value;
    }
    if (p.space == KernelParameter::Space::value) p.bytes = opencl_type_bytes(p.type, address_bytes);
    else if (p.space != KernelParameter::Space::unknown) p.bytes = sizeof(cl_mem);
  }
  return out;
}

class ClBuffer final : public Buffer {
 public:
  ClBuffer(cl_context ctx, std::size_t bytes) : size_(bytes) {
    cl_int status = CL_SUCCESS;
    mem_ = clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 4), nullptr, &status);
    ATTN_CL(status);
  }
  ~ClBuffer() override { clReleaseMemObject(mem_); }
  std::size_t size() const override { return size_; }
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_ = nullptr;
  std::size_t size_;
};

class ClProgram final : public Program {
 public:
  ~ClProgram() override {
    for (auto& [_, k] : kernels) clReleaseKernel(k);
    if (program) clReleaseProgram(program);
  }
  const std::string& build_log() const override { return log; }
  double compile_ms() const override { return ms; }
  KernelResources resources(const std::string& entry) const override { return res.at(entry); }
  bool from_cache() const override { return cached; }

  cl_program program = nullptr;
  std::map<std::string, cl_kernel> kernels;
  std::map<std::string, KernelResources> res;
  std::map<std::string, std::vector<KernelParameter>> params;
  std::string log;
  double ms = 0;
  bool cached = false;
};

class OpenClDevice final : public Device {
 public:
  OpenClDevice(cl_platform_id platform, cl_device_id device, DeviceInfo info) : device_(device), info_(std::move(info)) {
    cl_int status = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
    context_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &status);
    ATTN_CL(status);
    queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
    ATTN_CL(status);
    address_bytes_ = device_value<cl_uint>(device_, CL_DEVICE_ADDRESS_BITS) / 8;
  }
  ~OpenClDevice() override {
    flush_buffer_.reset();
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }

  const DeviceInfo& info() const override { return info_; }

  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return std::make_unique<ClBuffer>(context_, bytes); }

  void write(Buffer& dst, const void* src, std::size_t bytes) override {
    ATTN_CL(clEnqueueWriteBuffer(queue_, static_cast<ClBuffer&>(dst).mem(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr));
  }
  void read(const Buffer& src, void* dst, std::size_t bytes) override {
    const cl_int status =
        clEnqueueReadBuffer(queue_, static_cast<const ClBuffer&>(src).mem(), CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr);
    if (status == CL_OUT_OF_RESOURCES || status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
      throw DeviceLost(fmt::format("clEnqueueReadBuffer after a kernel failed: {}", cl_error_name(status)));
    ATTN_CL(status);
  }

  std::unique_ptr<Program> compile(const CompileRequest& request) override {
    auto program = std::make_unique<ClProgram>();
    const std::string options = build_options(request);
    CacheStore* store = compile_cache_store();
    bool cache_failures = true;
    const std::string key = store ? cache_key_of(request, options, cache_failures) : std::string{};
    if (store) {
      if (auto hit = store->load(key)) {
        if (!hit->ok)
          throw CachedCompileError(attribute_build_log(hit->message, request.source_path),
                                   attribute_build_log(hit->log, request.source_path));
        if (build_from_binary(*program, *hit, options)) {
          program->log = attribute_build_log(program->log, request.source_path);
          create_kernels(*program, request);
          return program;
        }
        program = std::make_unique<ClProgram>();
      }
    }
    try {
      build_from_source(*program, request, options);
    } catch (const CompileError& e) {
      if (store && cache_failures) {
        CacheEntry failed;
        failed.ok = false;
        failed.message = e.what();
        failed.log = e.log();
        store->save(key, failed);  // the compiler's own words: the same text may come from another file
      }
      throw CompileError(attribute_build_log(e.what(), request.source_path),
                         attribute_build_log(e.log(), request.source_path));
    }
    if (store) store->save(key, entry_of(*program));
    program->log = attribute_build_log(program->log, request.source_path);
    create_kernels(*program, request);
    return program;
  }

  using Device::run;
  double run(const Program& program, const std::vector<Launch>& launches, const LaunchArguments& launch_args) override {
    const auto& p = static_cast<const ClProgram&>(program);
    if (launch_args.size() != launches.size())
      throw LaunchError(fmt::format("{} launches, {} argument lists", launches.size(), launch_args.size()));
    std::vector<cl_event> events;
    auto release = [&] {
      for (cl_event e : events) clReleaseEvent(e);
    };
    try {
      for (std::size_t n = 0; n < launches.size(); ++n) {
        const Launch& launch = launches[n];
        const std::vector<KernelArg>& args = launch_args[n];
        if (launch.dynamic_shared_bytes > 0)
          throw LaunchError("OpenCL kernels take no dynamic local memory argument (shared_bytes must be 0)");
        if (launch.cluster[0] * launch.cluster[1] * launch.cluster[2] != 1)
          throw LaunchError(
              fmt::format("{}: thread-block clusters are CUDA only (the launch's cluster must be 1)", launch.entry));
        cl_kernel kernel = p.kernels.at(launch.entry);
        for (std::size_t i = 0; i < args.size(); ++i) {
          cl_int status;
          if (args[i].tensor_map)
            throw LaunchError(
                fmt::format("{}: argument {} is a TMA tensor map, which only CUDA devices take", launch.entry, i));
          if (args[i].null) {
            // A NULL cl_mem, as clSetKernelArg allows: the kernel sees a null pointer.
            status = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), nullptr);
          } else if (args[i].buffer) {
            cl_mem mem = static_cast<const ClBuffer*>(args[i].buffer)->mem();
            status = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mem);
          } else {
            status = clSetKernelArg(kernel, static_cast<cl_uint>(i), args[i].bytes.size(), args[i].bytes.data());
          }
          if (status != CL_SUCCESS)
            throw LaunchError(
                fmt::format("clSetKernelArg({}, arg {}) failed: {} (does the kernel follow the operation's "
                            "argument contract?)",
                            launch.entry, i, cl_error_name(status)));
        }
        std::size_t global[3], local[3];
        for (int d = 0; d < 3; ++d) {
          global[d] = static_cast<std::size_t>(launch.grid[d] * launch.block[d]);
          local[d] = static_cast<std::size_t>(launch.block[d]);
        }
        cl_event event = nullptr;
        const cl_int status = clEnqueueNDRangeKernel(queue_, kernel, 3, nullptr, global, local, 0, nullptr, &event);
        if (status != CL_SUCCESS)
          throw LaunchError(fmt::format("clEnqueueNDRangeKernel({}, global {}x{}x{}, local {}x{}x{}) failed: {}",
                                        launch.entry, global[0], global[1], global[2], local[0], local[1], local[2],
                                        cl_error_name(status)));
        events.push_back(event);
      }
      const cl_int status = clWaitForEvents(static_cast<cl_uint>(events.size()), events.data());
      if (status != CL_SUCCESS)
        throw DeviceLost(fmt::format("kernel execution failed: {} ({})", cl_error_name(status), status));
      cl_ulong start = 0, end = 0;
      ATTN_CL(clGetEventProfilingInfo(events.front(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr));
      ATTN_CL(clGetEventProfilingInfo(events.back(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr));
      release();
      return static_cast<double>(end - start) * 1e-6;
    } catch (...) {
      release();
      throw;
    }
  }

  std::optional<std::vector<KernelParameter>> parameters(const Program& program, const std::string& entry) override {
    const auto& p = static_cast<const ClProgram&>(program);
    const auto it = p.params.find(entry);
    if (it == p.params.end()) return std::nullopt;
    return it->second;
  }

  void flush_cache() override {
    if (!flush_buffer_) {
      // Twice the cache, at least 32 MiB, at most an eighth of the device's memory.
      std::size_t bytes = std::max<std::size_t>(2 * info_.cache_bytes, 32u << 20);
      bytes = std::min<std::size_t>(bytes, info_.global_mem_bytes / 8);
      flush_buffer_ = std::make_unique<ClBuffer>(context_, bytes);
    }
    const cl_uint pattern = ++flush_counter_;
    ATTN_CL(clEnqueueFillBuffer(queue_, flush_buffer_->mem(), &pattern, sizeof pattern, 0, flush_buffer_->size(), 0, nullptr,
                                nullptr));
    ATTN_CL(clFinish(queue_));
  }

 private:
  static std::string build_options(const CompileRequest& request) {
    std::string options;
    for (const auto& d : request.defines) {
      if (!is_identifier(d.name)) throw CompileError(fmt::format("-D name '{}' is not an identifier", d.name), "");
      options += fmt::format("-D {}={} ", d.name, d.value);
    }
    // Quoted only when needed: PoCL passes quotes through to clang literally.
    for (const auto& inc : request.include_dirs) {
      const std::string dir = inc.string();
      options += dir.find(' ') == std::string::npos ? fmt::format("-I {} ", dir) : fmt::format("-I \"{}\" ", dir);
    }
    for (const auto& o : request.extra_options) options += o + " ";
    // Parameter names, types and address spaces, which the spec's arguments are checked against before a run.
    options += "-cl-kernel-arg-info";
    return options;
  }

  void build_from_source(ClProgram& program, const CompileRequest& request, const std::string& options) {
    const char* text = request.source_text.c_str();
    const std::size_t length = request.source_text.size();
    cl_int status = CL_SUCCESS;
    program.program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
    ATTN_CL(status);
    const auto start = std::chrono::steady_clock::now();
    StderrCapture chatter;  // PoCL's compiler prints "1 warning generated." on stderr by itself
    const cl_int build = clBuildProgram(program.program, 1, &device_, options.c_str(), nullptr, nullptr);
    const std::string printed = chatter.release();
    program.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::size_t log_size = 0;
    clGetProgramBuildInfo(program.program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
    program.log.assign(log_size, '\0');
    clGetProgramBuildInfo(program.program, device_, CL_PROGRAM_BUILD_LOG, log_size, program.log.data(), nullptr);
    while (!program.log.empty() && (program.log.back() == '\0' || program.log.back() == '\n')) program.log.pop_back();
    if (!printed.empty()) program.log += (program.log.empty() ? "" : "\n") + printed;
    if (build != CL_SUCCESS)
      throw CompileError(fmt::format("clBuildProgram failed: {} (options: {})", cl_error_name(build), options), program.log);
  }

  void create_kernels(ClProgram& program, const CompileRequest& request) {
    cl_int status = CL_SUCCESS;
    for (const auto& entry : request.entries) {
      cl_kernel kernel = clCreateKernel(program.program, entry.c_str(), &status);
      if (status != CL_SUCCESS)
        throw CompileError(
            fmt::format("no kernel '{}' in {}: {}", entry, request.source_path.string(), cl_error_name(status)),
            program.log);
      program.kernels[entry] = kernel;
      program.params[entry] = kernel_parameters(kernel, address_bytes_);
      KernelResources r;
      cl_ulong private_mem = 0, local_mem = 0;
      std::size_t wg = 0;
      ATTN_CL(
          clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem, &private_mem, nullptr));
      ATTN_CL(clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, nullptr));
      ATTN_CL(clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr));
      r.private_mem_bytes = static_cast<long long>(private_mem);
      r.static_local_bytes = static_cast<long long>(local_mem);
      r.max_work_group_size = static_cast<long long>(wg);
      program.res[entry] = r;
    }
  }

  // ---- the on-disk compile cache (tuner/cache) ----
  // The key: the source and its headers, the options, and the platform, device
  // and driver, whose compiler made the binary. Resources are queried from the
  // loaded binary as from a fresh build; the log is the fresh build's.

  std::string cache_key_of(const CompileRequest& request, const std::string& options, bool& cache_failures) const {
    CacheKeyParts parts;
    parts.backend = "opencl";
    parts.compiler = fmt::format("{} | {} | driver {}", info_.platform, info_.arch, info_.driver_version);
    // PoCL appends these to every build's options (the test suite sets -cl-opt-disable): another binary.
    if (const char* extra = std::getenv("POCL_EXTRA_BUILD_FLAGS"); extra && *extra)
      parts.compiler += fmt::format(" | POCL_EXTRA_BUILD_FLAGS={}", extra);
    parts.target = fmt::format("{} | {}", info_.vendor, info_.name);
    cache_failures = key_source(parts, request.source_text, request.source_path, request.include_dirs);
    parts.options = {options};
    parts.entries = request.entries;
    return cache_key(parts);
  }

  CacheEntry entry_of(const ClProgram& program) const {
    CacheEntry e;
    e.log = program.log;
    e.details = {{"compile_ms", program.ms}};
    std::size_t size = 0;
    ATTN_CL(clGetProgramInfo(program.program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
    e.image.resize(size);
    unsigned char* data = reinterpret_cast<unsigned char*>(e.image.data());
    if (size) ATTN_CL(clGetProgramInfo(program.program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr));
    return e;
  }

  // False when the driver refuses the cached binary (another driver wrote it, or it broke): compile instead.
  bool build_from_binary(ClProgram& program, const CacheEntry& entry, const std::string& options) {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t size = entry.image.size();
    const auto* data = reinterpret_cast<const unsigned char*>(entry.image.data());
    cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
    if (size == 0) return false;
    program.program = clCreateProgramWithBinary(context_, 1, &device_, &size, &data, &binary_status, &status);
    if (status != CL_SUCCESS || binary_status != CL_SUCCESS ||
        clBuildProgram(program.program, 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      spdlog::debug("compile cache: the driver refused a cached OpenCL binary ({}): compiling again",
                    cl_error_name(status != CL_SUCCESS ? status : binary_status));
      return false;
    }
    program.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    program.log = entry.log;
    program.cached = true;
    return true;
  }

  cl_device_id device_;
  DeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::unique_ptr<ClBuffer> flush_buffer_;
  cl_uint flush_counter_ = 0;
  std::size_t address_bytes_ = 8;  // size_t's bytes on the device
};

}  // namespace

std::vector<DeviceInfo> list_opencl_devices(std::vector<std::string>& notes) {
  std::vector<DeviceInfo> out;
  try {
    const auto ps = platforms();
    if (ps.empty()) notes.push_back("opencl: no OpenCL platform found (install an ICD, e.g. pocl-opencl-icd)");
    for (std::size_t pi = 0; pi < ps.size(); ++pi) {
      const auto ds = devices_of(ps[pi]);
      for (std::size_t di = 0; di < ds.size(); ++di) out.push_back(describe(ps[pi], ds[di], int(pi), int(di)));
    }
  } catch (const Error& e) {
    notes.push_back(fmt::format("opencl: {}", e.what()));
  }
  return out;
}

std::unique_ptr<Device> open_opencl_device(int platform, int device) {
  const auto ps = platforms();
  if (platform < 0 || platform >= int(ps.size())) throw UsageError(fmt::format("no OpenCL platform {}", platform));
  const auto ds = devices_of(ps[platform]);
  if (device < 0 || device >= int(ds.size()))
    throw UsageError(fmt::format("no OpenCL device {} on platform {}", device, platform));
  return std::make_unique<OpenClDevice>(ps[platform], ds[device], describe(ps[platform], ds[device], platform, device));
}

}  // namespace attn

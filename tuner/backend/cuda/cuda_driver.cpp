#include "tuner/backend/cuda/cuda_driver.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/core/error.hpp"

#define ATTN_CU_STR2_(x) #x
#define ATTN_CU_STR_(x) ATTN_CU_STR2_(x)

namespace attn::cu {
namespace {

constexpr const char* kLibrary = "libcuda.so.1";

// cuGetProcAddress as of CUDA 12 (the _v2 symbol, with the query result).
using GetProcAddressFn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct LoadState {
  bool library_found = false;
  bool ok = false;
  std::string why;  // when !ok
  DriverApi api;
};

std::string dl_error_text() {
  const char* e = dlerror();
  return e ? std::string(e) : std::string("unknown dlopen error");
}

LoadState load() {
  LoadState s;
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.why = dl_error_text();  // "libcuda.so.1: cannot open shared object file: ..."
    return s;
  }
  s.library_found = true;  // never dlclose'd: function pointers stay valid

  DriverApi& api = s.api;
  // The three calls needed before cuGetProcAddress come straight from dlsym.
  api.cuInit = reinterpret_cast<decltype(api.cuInit)>(dlsym(lib, "cuInit"));
  api.cuDriverGetVersion = reinterpret_cast<decltype(api.cuDriverGetVersion)>(dlsym(lib, "cuDriverGetVersion"));
  auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!api.cuInit || !api.cuDriverGetVersion) {
    s.why = fmt::format("{}: cuInit/cuDriverGetVersion not exported (not an NVIDIA driver?)", kLibrary);
    return s;
  }
  int version = 0;
  if (api.cuDriverGetVersion(&version) != CUDA_SUCCESS) version = 0;
  api.version = version;
  // Ask for each symbol as of the CUDA version this file was compiled against,
  // or the driver's when that is older: an older driver then returns the
  // newest version it has, with the same signature for every function we use.
  const int want = version > 0 ? std::min(version, CUDA_VERSION) : CUDA_VERSION;

  std::string missing;
  auto resolve = [&](const char* api_name, const char* symbol, void** slot) {
    *slot = nullptr;
    if (get_proc) {
      CUdriverProcAddressQueryResult status{};
      if (get_proc(api_name, slot, want, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) != CUDA_SUCCESS ||
          status != CU_GET_PROC_ADDRESS_SUCCESS)
        *slot = nullptr;
    }
    if (!*slot) *slot = dlsym(lib, symbol);
    if (!*slot) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  };
  // #name is the API name ("cuMemAlloc"); ATTN_CU_STR_(name) the symbol <cuda.h>
  // maps it to ("cuMemAlloc_v2"), which dlsym needs.
#define ATTN_CU_RESOLVE(name) resolve(#name, ATTN_CU_STR_(name), reinterpret_cast<void**>(&api.name));
  ATTN_CU_DRIVER_FUNCTIONS(ATTN_CU_RESOLVE)
#undef ATTN_CU_RESOLVE
  {
    const std::string required = std::move(missing);
    missing.clear();
    resolve("cuFuncGetParamInfo", "cuFuncGetParamInfo", reinterpret_cast<void**>(&api.cuFuncGetParamInfo));
    resolve("cuTensorMapEncodeTiled", "cuTensorMapEncodeTiled", reinterpret_cast<void**>(&api.cuTensorMapEncodeTiled));
    resolve("cuLaunchKernelEx", "cuLaunchKernelEx", reinterpret_cast<void**>(&api.cuLaunchKernelEx));
    missing = required;  // the optional ones may be absent
  }
  if (!missing.empty()) {
    s.why = fmt::format("{} (driver version {}): missing {}", kLibrary, version, missing);
    return s;
  }

  const CUresult r = api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* text = nullptr;
    api.cuGetErrorName(r, &name);
    api.cuGetErrorString(r, &text);
    s.why = fmt::format("cuInit: {}{}", name ? name : fmt::format("CUresult {}", int(r)),
                        text ? fmt::format(" ({})", text) : "");
    return s;
  }
  s.ok = true;
  return s;
}

const LoadState& state() {
  static const LoadState s = load();
  return s;
}

std::atomic<const DriverApi*> g_loaded{nullptr};

// __FILE__ relative to the source tree when it lies inside it.
std::string_view short_file(const char* file) {
  std::string_view f = file ? file : "";
#ifdef ATTN_TUNE_SOURCE_DIR
  constexpr std::string_view root = ATTN_TUNE_SOURCE_DIR;
  if (f.size() > root.size() + 1 && f.substr(0, root.size()) == root && f[root.size()] == '/')
    f.remove_prefix(root.size() + 1);
#endif
  return f;
}

}  // namespace

const DriverApi& driver() {
  const LoadState& s = state();
  if (!s.ok) {
    if (!s.library_found) throw BackendError("cuda: no NVIDIA driver found (" + s.why + ")");
    throw BackendError("cuda: the NVIDIA driver cannot be used (" + s.why + ")");
  }
  g_loaded.store(&s.api, std::memory_order_release);
  return s.api;
}

const DriverApi* loaded_driver() noexcept { return g_loaded.load(std::memory_order_acquire); }

bool is_sticky_error(CUresult r) noexcept {
  switch (static_cast<int>(r)) {
    case CUDA_ERROR_ECC_UNCORRECTABLE:      // 214
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:   // 220
    case 226:                               // CUDA_ERROR_CONTAINED (12.x)
    case CUDA_ERROR_ILLEGAL_ADDRESS:        // 700
    case CUDA_ERROR_LAUNCH_TIMEOUT:         // 702
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:   // 709
    case CUDA_ERROR_ASSERT:                 // 710: device-side assert / __trap
    case CUDA_ERROR_HARDWARE_STACK_ERROR:   // 714
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:    // 715
    case CUDA_ERROR_MISALIGNED_ADDRESS:     // 716
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:  // 717
    case CUDA_ERROR_INVALID_PC:             // 718
    case CUDA_ERROR_LAUNCH_FAILED:          // 719: trap, and other device exceptions
    case 721:                               // CUDA_ERROR_TENSOR_MEMORY_LEAK (12.8)
    case 810:                               // CUDA_ERROR_MPS_CLIENT_TERMINATED
    case 911:                               // CUDA_ERROR_EXTERNAL_DEVICE
    case CUDA_ERROR_UNKNOWN:                // 999: nothing more can be trusted
      return true;
    default: return false;
  }
}

std::string error_name(CUresult r) {
  const DriverApi* api = loaded_driver();
  const char* name = nullptr;
  if (api && api->cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUresult {}", static_cast<int>(r));
}

std::string error_string(CUresult r) {
  const DriverApi* api = loaded_driver();
  const char* text = nullptr;
  if (api && api->cuGetErrorString(r, &text) == CUDA_SUCCESS && text) return text;
  return {};
}

std::string describe_error(CUresult r, const char* call, const char* file, int line) {
  const std::string text = error_string(r);
  return fmt::format("cuda: {} failed: {}{} at {}:{}", call, error_name(r), text.empty() ? "" : " (" + text + ")",
                     short_file(file), line);
}

void throw_error(CUresult r, const char* call, const char* file, int line, Failure kind) {
  std::string message = describe_error(r, call, file, line);
  if (is_sticky_error(r)) throw DeviceLost(message + "; the CUDA context is no longer usable");
  if (kind == Failure::launch) throw LaunchError(message);
  throw BackendError(message);
}

CUresult check_nothrow(CUresult r, const char* call, const char* file, int line) noexcept {
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED) return r;  // at exit: nothing to say
  try {
    spdlog::warn("{} (ignored)", describe_error(r, call, file, line));
  } catch (...) {
  }
  return r;
}

}  // namespace attn::cu

namespace attn {

bool driver_available(std::string* why) {
  try {
    cu::driver();
    return true;
  } catch (const std::exception&) {
    if (why) *why = cu::state().why;
    return false;
  }
}

bool driver_library_found() { return cu::state().library_found; }

}  // namespace attn

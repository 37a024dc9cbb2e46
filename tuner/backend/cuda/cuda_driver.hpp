// The CUDA driver API, loaded at run time.
//
// attn-tune never links libcuda: the binary must start (and `attn-tune compile`
// must work) on machines with no NVIDIA driver. libcuda.so.1 is dlopen'ed on
// first use and every function the backend calls is looked up once, through
// cuGetProcAddress (so each symbol comes in the version that matches the
// <cuda.h> it was compiled against) with dlsym as the fallback, into a table
// of function pointers typed from <cuda.h>.
//
// Every call goes through one checking macro that keeps the call's text, the
// file, the line, and the error's name and description:
//
//   ATTN_CU(cuMemAlloc(&ptr, bytes));          // BackendError, or DeviceLost
//   ATTN_CU_LAUNCH(cuLaunchKernel(...));       // LaunchError, or DeviceLost
//   ATTN_CU_NOTHROW(cuMemFree(ptr));           // destructors: logs, never throws
//
// Sticky errors (illegal address, trap, hardware exceptions...) leave the
// context unusable: they always throw DeviceLost, and the worker process that
// owns the context must be replaced.
//
// This header includes <cuda.h>; it is internal to the backend (the public
// headers cuda_device.hpp, nvrtc_compiler.hpp and occupancy.hpp do not).
#pragma once

#include <cuda.h>

#include <string>

namespace attn::cu {

// The functions the backend uses. Names are the <cuda.h> API names: where
// <cuda.h> maps one to a versioned symbol (cuMemAlloc -> cuMemAlloc_v2), the
// member takes that name and type too, so `driver().cuMemAlloc(...)` calls the
// version the header describes.
#define ATTN_CU_DRIVER_FUNCTIONS(X)              \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorName)                              \
  X(cuGetErrorString)                            \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetName)                             \
  X(cuDeviceGetAttribute)                        \
  X(cuDeviceTotalMem)                            \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease)                   \
  X(cuCtxSetCurrent)                             \
  X(cuCtxSynchronize)                            \
  X(cuMemAlloc)                                  \
  X(cuMemFree)                                   \
  X(cuMemcpyHtoD)                                \
  X(cuMemcpyDtoH)                                \
  X(cuMemsetD8Async)                             \
  X(cuModuleLoadDataEx)                          \
  X(cuModuleUnload)                              \
  X(cuModuleGetFunction)                         \
  X(cuFuncGetAttribute)                          \
  X(cuFuncSetAttribute)                          \
  X(cuLaunchKernel)                              \
  X(cuStreamCreate)                              \
  X(cuStreamDestroy)                             \
  X(cuStreamSynchronize)                         \
  X(cuEventCreate)                               \
  X(cuEventDestroy)                              \
  X(cuEventRecord)                               \
  X(cuEventSynchronize)                          \
  X(cuEventElapsedTime)                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuDeviceGetPCIBusId)                         \
  X(cuStreamBeginCapture)                        \
  X(cuStreamEndCapture)                          \
  X(cuGraphInstantiateWithFlags)                 \
  X(cuGraphLaunch)                               \
  X(cuGraphExecDestroy)                          \
  X(cuGraphDestroy)

struct DriverApi {
#define ATTN_CU_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  ATTN_CU_DRIVER_FUNCTIONS(ATTN_CU_DRIVER_MEMBER)
#undef ATTN_CU_DRIVER_MEMBER
  // Optional: null where the driver lacks it (before CUDA 12.4). Used to check
  // kernel arguments' count and sizes before a launch.
  CUresult(CUDAAPI* cuFuncGetParamInfo)(CUfunction, size_t, size_t*, size_t*) = nullptr;
  // Optional: null before CUDA 12. Encodes TMA tensor maps (tensor_map.hpp).
  decltype(&::cuTensorMapEncodeTiled) cuTensorMapEncodeTiled = nullptr;
  // Optional: null before CUDA 12. Launches with attributes (thread-block clusters).
  decltype(&::cuLaunchKernelEx) cuLaunchKernelEx = nullptr;
  int version = 0;  // cuDriverGetVersion: 13000 for CUDA 13.0
};

// The loaded, initialised (cuInit) driver. Throws BackendError saying why not
// ("cuda: no NVIDIA driver found (libcuda.so.1: cannot open shared object
// file: ...)") when it cannot be had. Loads once; thread-safe.
const DriverApi& driver();

// The driver when driver() has succeeded before, else nullptr. Never throws.
const DriverApi* loaded_driver() noexcept;

// How the error check classifies a failure that is not sticky.
enum class Failure { backend, launch };

// CUDA_ERROR_ILLEGAL_ADDRESS, _MISALIGNED_ADDRESS, _ILLEGAL_INSTRUCTION,
// _HARDWARE_STACK_ERROR, _LAUNCH_FAILED, _ASSERT, _LAUNCH_TIMEOUT, ECC, ...:
// the context (in fact the process) cannot do more CUDA work.
bool is_sticky_error(CUresult r) noexcept;

// "CUDA_ERROR_OUT_OF_MEMORY", from the driver when it is loaded, else "CUresult 2".
std::string error_name(CUresult r);
// "out of memory", from the driver when it is loaded, else "".
std::string error_string(CUresult r);

// "cuda: cuMemAlloc(&ptr, bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)
//  at tuner/backend/cuda/cuda_device.cpp:120"
std::string describe_error(CUresult r, const char* call, const char* file, int line);

// Throws DeviceLost for sticky errors, else LaunchError or BackendError by kind.
[[noreturn]] void throw_error(CUresult r, const char* call, const char* file, int line, Failure kind);

// Logs a failure (a warning) and returns r; never throws.
CUresult check_nothrow(CUresult r, const char* call, const char* file, int line) noexcept;

}  // namespace attn::cu

namespace attn {

// Whether the CUDA driver can be loaded and initialised. When not, *why (if
// given) says why: "libcuda.so.1: cannot open shared object file: No such
// file or directory", or "cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable
// device is detected)". Never throws.
bool driver_available(std::string* why = nullptr);

// Whether the shared library itself was found (false: no driver installed).
bool driver_library_found();

}  // namespace attn

#define ATTN_CU_CHECK_IMPL_(call, kind)                                                                             \
  do {                                                                                                              \
    const CUresult attn_cu_result_ = ::attn::cu::driver().call;                                                     \
    if (attn_cu_result_ != CUDA_SUCCESS) ::attn::cu::throw_error(attn_cu_result_, #call, __FILE__, __LINE__, kind); \
  } while (0)

// A driver call outside launches: BackendError (DeviceLost when sticky).
#define ATTN_CU(call) ATTN_CU_CHECK_IMPL_(call, ::attn::cu::Failure::backend)
// A launch or its completion: LaunchError (DeviceLost when sticky).
#define ATTN_CU_LAUNCH(call) ATTN_CU_CHECK_IMPL_(call, ::attn::cu::Failure::launch)
// For destructors and cleanup: logs a failure, never throws; yields the CUresult.
#define ATTN_CU_NOTHROW(call)                                                                                             \
  ::attn::cu::check_nothrow(::attn::cu::loaded_driver() ? ::attn::cu::loaded_driver()->call : CUDA_ERROR_NOT_INITIALIZED, \
                            #call, __FILE__, __LINE__)

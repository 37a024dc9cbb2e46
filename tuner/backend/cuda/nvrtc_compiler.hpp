// CUDA C++ kernels compiled with NVRTC, and ptxas' resource report parsed.
//
// Needs neither a GPU nor the driver: `attn-tune compile SPEC --arch sm_90`
// runs this on every CUDA build configuration.
//
// Options passed to NVRTC, in this order (nvrtc_options):
//   --gpu-architecture=<arch>   sm_90, sm_90a, ...: a CUBIN comes back
//                               (compute_90: PTX, JIT-compiled when loaded)
//   -std=c++17
//   --ptxas-options=-v          so the log carries ptxas' per-entry report
//   --no-cache                  NVRTC >= 12.9 caches compilations (~/.nv); a cache
//                               hit runs no ptxas, so the log would have no report
//                               and compile_ms would not be a compile time
//   -DNAME=VALUE                each define; names must be C identifiers
//   -I<dir>                     each include dir of the request (the kernels/
//                               dir, for "common/attn_params.h"), then the
//                               toolkit's include dirs (cuda_fp16.h, cuda_bf16.h,
//                               mma.h, cuda/pipeline from CCCL)
//   <extra_options>             the spec's, last, so they can override the above
// NVRTC knows no host system headers and no host code: kernels are
// self-contained (a file with a host main or launcher compiles through nvcc,
// nvcc_compiler.hpp). Every entry of request.entries is a name expression
// (nvrtcAddNameExpression): an `extern "C" __global__` function (lowered to
// itself), a plain C++ `__global__` function ("attn_fwd", lowered to its mangled
// name) or a template instance ("attn_fwd<64, true>", instantiated); every one
// must be in the compiled image.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

// ptxas' report of one function ("Compiling entry function 'x' for 'sm_90'",
// "Function properties for x", "N bytes stack frame, ...", "Used N registers, ...").
struct PtxasFunction {
  std::string name;
  bool is_entry = false;  // a __global__ ("Compiling entry function")
  std::string arch;       // "sm_90" as ptxas printed it, for entries
  std::optional<long long> registers;
  std::optional<long long> barriers;
  std::optional<long long> stack_frame_bytes;
  std::optional<long long> spill_store_bytes;
  std::optional<long long> spill_load_bytes;
  std::optional<long long> smem_bytes;  // static shared memory (0 when not printed)
  std::optional<long long> cumulative_stack_bytes;
  std::map<int, long long> cmem_bytes;  // constant bank -> bytes (sm_80: cmem[0] = params)
  // "(C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized ..."
  // lines naming this function: the kernel runs, but slower than its code suggests.
  std::vector<std::string> performance_notes;
};

struct PtxasReport {
  std::optional<long long> gmem_bytes;   // global (__device__) variables
  std::map<int, long long> cmem_bytes;   // module-level constant banks (__constant__)
  std::vector<PtxasFunction> functions;  // in the log's order, entries and device functions
  std::vector<std::string> warnings;     // "ptxas warning/error/fatal : ..." lines, as printed

  const PtxasFunction* find(std::string_view name) const;
};

// Parses ptxas' verbose output (NVRTC's log with --ptxas-options=-v, or nvcc's
// -Xptxas -v output). Unknown lines are ignored; never throws.
PtxasReport parse_ptxas_log(std::string_view log);

// KernelResources from ptxas' figures (registers, private = stack frame, spills,
// static shared memory). Empty when the report does not have the entry.
KernelResources resources_from_ptxas(const PtxasReport& report, std::string_view entry);

// The toolkit include dirs added to every compilation: $ATTN_TUNE_CUDA_INCLUDE
// (a ':'-separated list) when set, else the dirs found at configure time
// (CUDAToolkit_INCLUDE_DIRS); each followed by its cccl/ subdir where there is one.
// Only dirs that exist are returned.
std::vector<std::filesystem::path> cuda_toolkit_include_dirs();

// The options NVRTC gets for `request` compiled for `arch` (see the top of this file).
// Throws CompileError when a define's name is not an identifier.
// no_cache: add --no-cache (nvrtc_has_cache() says whether this NVRTC needs it).
std::vector<std::string> nvrtc_options(const CompileRequest& request, std::string_view arch,
                                       const std::vector<std::filesystem::path>& toolkit_dirs, bool no_cache);

// "13.0", from nvrtcVersion.
std::string nvrtc_version();
// NVRTC's --gpu-architecture values, "sm_50" ... "sm_120", from nvrtcGetSupportedArchs.
std::vector<std::string> nvrtc_supported_archs();

// Whether this NVRTC has a compilation cache (12.9 on) that --no-cache turns off.
bool nvrtc_has_cache();

// What one compilation produced (by NVRTC, or by nvcc: nvcc_compiler.hpp).
struct NvrtcResult {
  std::string arch;                  // the target: the last --gpu-architecture given
  bool is_cubin = true;              // false: PTX (arch compute_XY)
  std::vector<char> image;           // the CUBIN, or the PTX text with its NUL
  std::string log;                   // NVRTC's log, ptxas' report included
  std::vector<std::string> options;  // exactly what the compiler was given
  std::string compiler_version;      // "nvrtc 13.0", "nvcc 13.0, V13.0.88": what the image was compiled by
  double compile_ms = 0;             // nvrtcCompileProgram + getting the image (a cache hit: reading it)
  bool from_cache = false;           // read from the on-disk compile cache (tuner/cache)
  PtxasReport ptxas;
  std::map<std::string, std::string> lowered_names;  // entry -> its mangled symbol, where the two differ

  // The symbol ENTRY has in the image: its lowered name, or ENTRY itself (extern "C").
  std::string symbol(const std::string& entry) const;
};

// Whether ENTRY names a template instance ("f<1, true>") rather than one function.
bool is_name_expression(std::string_view entry);

// Compiles request.source_text (or the file request.source_path when the text
// is empty) for `arch` (request.arch when `arch` is empty). Throws CompileError
// carrying NVRTC's whole log when compilation fails, an option is invalid, or
// an entry of request.entries is not in the result; UsageError when no arch is
// given at all. With the process's compile cache on (configure_compile_cache),
// a result or failure cached under the same key is returned instead, with the
// same log and ptxas report.
NvrtcResult nvrtc_compile(const CompileRequest& request, std::string_view arch = {});

}  // namespace attn

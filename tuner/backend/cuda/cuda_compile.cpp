#include "tuner/backend/cuda/cuda_compile.hpp"

#include <fmt/format.h>

#include "tuner/backend/cuda/nvcc_compiler.hpp"
#include "tuner/core/error.hpp"

namespace attn {

NvrtcResult cuda_compile(const CompileRequest& request, std::string_view arch) {
  if (request.cuda_compiler.empty() || request.cuda_compiler == "nvrtc") return nvrtc_compile(request, arch);
  if (request.cuda_compiler == "nvcc") return nvcc_compile(request, arch);
  throw CompileError(fmt::format("cuda: unknown compiler '{}' (known: nvrtc, nvcc)", request.cuda_compiler), "");
}

KernelResources entry_resources(const NvrtcResult& compiled, const std::string& entry) {
  const std::string symbol = compiled.symbol(entry);
  KernelResources res = resources_from_ptxas(compiled.ptxas, symbol);
  if (symbol != entry) res.symbol = symbol;
  return res;
}

}  // namespace attn

// One CUDA compilation by the compiler the request names: NVRTC (the default)
// or the toolkit's nvcc, for sources with host code ("cuda_compiler": "nvcc").
#pragma once

#include <string_view>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"

namespace attn {

// nvrtc_compile or nvcc_compile, by request.cuda_compiler; throws CompileError
// naming an unknown compiler.
NvrtcResult cuda_compile(const CompileRequest& request, std::string_view arch = {});

// KernelResources of ENTRY in COMPILED: ptxas' figures under its symbol, and the
// symbol itself where it differs from ENTRY (a C++ function's mangled name).
KernelResources entry_resources(const NvrtcResult& compiled, const std::string& entry);

}  // namespace attn

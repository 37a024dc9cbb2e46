// The on-disk compile cache around one CUDA compilation, shared by NVRTC and
// nvcc: a result (or a failure) stored under a key is answered with the same
// image, log, ptxas report and lowered names as the compile that stored it.
#pragma once

#include <functional>
#include <string>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"

namespace attn {

// PLANNED carries what is known before compiling (arch, options). Without a
// process cache (configure_compile_cache) COMPILE simply runs. A failure is
// stored only when CACHE_FAILURES (a missing include must not be remembered).
NvrtcResult compile_through_cache(const std::string& key, bool cache_failures, NvrtcResult planned,
                                  const std::function<NvrtcResult(NvrtcResult)>& compile);

}  // namespace attn

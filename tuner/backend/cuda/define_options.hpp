// The spec's defines as -D options, the same for NVRTC and nvcc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

// "-DNAME=VALUE" per define; a name that is no C identifier is a CompileError naming COMPILER ("nvrtc", "nvcc").
std::vector<std::string> define_options(const std::vector<Define>& defines, std::string_view compiler);

}  // namespace attn

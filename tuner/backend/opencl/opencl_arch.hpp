// The architecture an OpenCL device is tuned for, as a tuned table keys it: NVIDIA's OpenCL driver reports no
// compute capability, so known GPU names map to theirs; PoCL's version string ends in the LLVM target of the CPU.
#pragma once

#include <string>

#include "tuner/device/device.hpp"

namespace attn {

// "sm_90" for an H200, "skylake-avx512" for PoCL on such a CPU; else the device's version string.
std::string opencl_architecture_key(const DeviceInfo& device);

}  // namespace attn

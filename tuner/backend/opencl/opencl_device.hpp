// The OpenCL backend: any OpenCL 1.2 device through the ICD loader (PoCL on
// the CPU, NVIDIA's, AMD's, Intel's drivers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

// Every device of every platform, as "opencl:P:D". A missing or empty ICD
// setup is a note, not an error.
std::vector<DeviceInfo> list_opencl_devices(std::vector<std::string>& notes);

// Throws UsageError when the id names no device.
std::unique_ptr<Device> open_opencl_device(int platform, int device);

}  // namespace attn

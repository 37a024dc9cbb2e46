// The keys a tuned table finds a device by, most to least specific: its name,
// its architecture, its vendor (CLBlast's device -> architecture -> vendor chain).
#pragma once

#include <string>

#include "tuner/device/device.hpp"

namespace attn {

struct DeviceKeys {
  std::string name;    // "NVIDIA H200", "pthread-skylake-avx512-AMD EPYC"
  std::string arch;    // "sm_90"; PoCL: the CPU ("skylake-avx512"); else the OpenCL device version
  std::string vendor;  // "NVIDIA Corporation", "AuthenticAMD"
};

// The architecture key comes from the device's backend (backend/registry.hpp's architecture_key).
DeviceKeys device_keys(const DeviceInfo& device);

// A lower-case, '-'-separated form of S, for file names and HTML ids.
std::string slug(const std::string& s);

}  // namespace attn

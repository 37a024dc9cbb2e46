// Every backend's devices behind one list, and --device ID resolution.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

struct DeviceListing {
  std::vector<DeviceInfo> devices;
  std::vector<std::string> notes;  // "cuda: no NVIDIA driver found (...)": why a backend lists nothing
};

DeviceListing list_devices();

// Opens "opencl:P:D" or "cuda:N". An unknown id throws UsageError listing the devices that exist.
std::unique_ptr<Device> open_device(const std::string& id);

// The architecture a tuned table keys DEVICE by (a recorded device: no driver needed): CUDA's sm_XY; for
// OpenCL, what its backend derives from the name or version (backend/opencl/opencl_arch.hpp).
std::string architecture_key(const DeviceInfo& device);

// The listed device of that id; throws UsageError listing the devices found otherwise.
DeviceInfo find_device(const std::string& id);

// Returns ID when a device of that id is listed; throws UsageError listing the
// devices found otherwise. Lets the CLI reject a bad --device before starting workers.
std::string require_device(const std::string& id);

// The device a sweep runs on when --device is not given: a GPU before an
// accelerator before a CPU, CUDA before OpenCL, among the backends the spec has
// sources for. Throws UsageError when none fits.
std::string best_device_id(const std::vector<std::string>& backends);

}  // namespace attn

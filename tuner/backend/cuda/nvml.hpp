// NVML (the NVIDIA Management Library), loaded at run time like the driver:
// attn-tune never links it, and a machine without it (PoCL, OpenCL, a
// container without the management library) simply has no clock readings.
//
// One NvmlDevice reads one GPU's SM and memory clocks, power, temperature and
// the reasons its clocks are held down, right after a timed sample.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

// NVML's clock event ("throttle") reason bits, by name: "sw_power_cap",
// "hw_thermal_slowdown", ... ; "gpu_idle" and unknown bits included.
std::vector<std::string> clock_event_reason_names(std::uint64_t reasons);

class NvmlDevice {
 public:
  // The GPU at PCI bus id BUS ("0000:19:00.0", as cuDeviceGetPCIBusId says).
  // Null when NVML cannot be loaded or does not know the device; *why (if
  // given) then says why. Never throws.
  static std::unique_ptr<NvmlDevice> open(const std::string& pci_bus_id, std::string* why = nullptr);

  // The clocks now. None when NVML fails to answer the SM clock.
  std::optional<ClockReading> read() const;

 private:
  NvmlDevice() = default;
  void* handle_ = nullptr;  // nvmlDevice_t
  double expected_sm_mhz_ = 0;
};

}  // namespace attn

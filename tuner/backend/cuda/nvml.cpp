#include "tuner/backend/cuda/nvml.hpp"

#include <dlfcn.h>

#include <utility>

#include <fmt/format.h>

namespace attn {
namespace {

// The few NVML entry points used, with their C types (nvml.h is not needed:
// nvmlReturn_t is an int, nvmlDevice_t a pointer, enums are ints).
using nvmlReturn = int;
using nvmlDevice = void*;
constexpr nvmlReturn kSuccess = 0;
constexpr int kClockSm = 1;         // NVML_CLOCK_SM
constexpr int kClockMem = 2;        // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

struct NvmlApi {
  nvmlReturn (*init)() = nullptr;
  const char* (*error_string)(nvmlReturn) = nullptr;
  nvmlReturn (*handle_by_pci_bus_id)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock_info)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*max_clock_info)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*applications_clock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*power_usage)(nvmlDevice, unsigned*) = nullptr;  // milliwatts
  nvmlReturn (*temperature)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*event_reasons)(nvmlDevice, unsigned long long*) = nullptr;
  bool ok = false;
  std::string why;
};

template <class F>
void bind(void* lib, F& slot, std::initializer_list<const char*> symbols) {
  for (const char* s : symbols)
    if (void* p = dlsym(lib, s)) {
      slot = reinterpret_cast<F>(p);
      return;
    }
}

NvmlApi load() {
  NvmlApi api;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    api.why = e ? e : "libnvidia-ml.so.1: cannot be loaded";
    return api;
  }
  // Never dlclose'd, never nvmlShutdown: readings go on until the process ends.
  bind(lib, api.init, {"nvmlInit_v2", "nvmlInit"});
  bind(lib, api.error_string, {"nvmlErrorString"});
  bind(lib, api.handle_by_pci_bus_id, {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"});
  bind(lib, api.clock_info, {"nvmlDeviceGetClockInfo"});
  bind(lib, api.max_clock_info, {"nvmlDeviceGetMaxClockInfo"});
  bind(lib, api.applications_clock, {"nvmlDeviceGetApplicationsClock"});
  bind(lib, api.power_usage, {"nvmlDeviceGetPowerUsage"});
  bind(lib, api.temperature, {"nvmlDeviceGetTemperature"});
  // Renamed in R535 ("throttle" became "clocks event"); both mean the same bits.
  bind(lib, api.event_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  if (!api.init || !api.handle_by_pci_bus_id || !api.clock_info) {
    api.why = "libnvidia-ml.so.1: nvmlInit / nvmlDeviceGetHandleByPciBusId / nvmlDeviceGetClockInfo not exported";
    return api;
  }
  if (const nvmlReturn r = api.init(); r != kSuccess) {
    api.why = fmt::format("nvmlInit: {}", api.error_string ? api.error_string(r) : std::to_string(r));
    return api;
  }
  api.ok = true;
  return api;
}

const NvmlApi& nvml() {
  static const NvmlApi api = load();
  return api;
}

}  // namespace

std::vector<std::string> clock_event_reason_names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {{0x1, "gpu_idle"},
                                                                 {0x2, "applications_clocks_setting"},
                                                                 {0x4, "sw_power_cap"},
                                                                 {0x8, "hw_slowdown"},
                                                                 {0x10, "sync_boost"},
                                                                 {0x20, "sw_thermal_slowdown"},
                                                                 {0x40, "hw_thermal_slowdown"},
                                                                 {0x80, "hw_power_brake_slowdown"},
                                                                 {0x100, "display_clock_setting"}};
  std::vector<std::string> names;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (reasons & bit) names.emplace_back(name);
  }
  if (reasons & ~known) names.push_back(fmt::format("0x{:x}", reasons & ~known));
  return names;
}

std::unique_ptr<NvmlDevice> NvmlDevice::open(const std::string& pci_bus_id, std::string* why) {
  const NvmlApi& api = nvml();
  if (!api.ok) {
    if (why) *why = api.why;
    return nullptr;
  }
  nvmlDevice handle = nullptr;
  if (const nvmlReturn r = api.handle_by_pci_bus_id(pci_bus_id.c_str(), &handle); r != kSuccess) {
    if (why)
      *why = fmt::format("nvmlDeviceGetHandleByPciBusId({}): {}", pci_bus_id,
                         api.error_string ? api.error_string(r) : std::to_string(r));
    return nullptr;
  }
  std::unique_ptr<NvmlDevice> d(new NvmlDevice());
  d->handle_ = handle;
  // The clock a loaded GPU is meant to run at: its application clock where one
  // is set (a lowered one is intended), else its maximum boost clock.
  unsigned mhz = 0;
  if (api.applications_clock && api.applications_clock(handle, kClockSm, &mhz) == kSuccess && mhz > 0)
    d->expected_sm_mhz_ = mhz;
  else if (api.max_clock_info && api.max_clock_info(handle, kClockSm, &mhz) == kSuccess) d->expected_sm_mhz_ = mhz;
  return d;
}

std::optional<ClockReading> NvmlDevice::read() const {
  const NvmlApi& api = nvml();
  unsigned v = 0;
  if (api.clock_info(handle_, kClockSm, &v) != kSuccess) return std::nullopt;
  ClockReading c;
  c.sm_mhz = v;
  c.expected_sm_mhz = expected_sm_mhz_;
  if (api.clock_info(handle_, kClockMem, &v) == kSuccess) c.mem_mhz = v;
  if (api.power_usage && api.power_usage(handle_, &v) == kSuccess) c.power_w = v / 1000.0;
  if (api.temperature && api.temperature(handle_, kTemperatureGpu, &v) == kSuccess) c.temperature_c = v;
  unsigned long long reasons = 0;
  if (api.event_reasons && api.event_reasons(handle_, &reasons) == kSuccess) c.reasons = clock_event_reason_names(reasons);
  return c;
}

}  // namespace attn

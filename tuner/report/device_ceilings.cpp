#include "tuner/report/device_ceilings.hpp"

#include <algorithm>
#include <array>

namespace attn {
namespace {

struct KnownDevice {
  const char* name_part;  // the first entry whose part the device's name contains wins
  double gbps;
  double fp16_gflops, bf16_gflops, fp32_gflops;
  const char* source;
};

constexpr std::array<KnownDevice, 3> kKnown{{
    {"H200", 4260, 770e3, 799e3, 51e3,
     "measured on an H200 (2026-11-21, ../shared/ANCHORS.md): device-to-device copy 4.26 TB/s read + written; "
     "dense GEMM 8192^3 fp16 770, bf16 799, plain fp32 51 TFLOP/s"},
    {"H100 PCIe", 2000, 756e3, 756e3, 51e3,
     "NVIDIA H100 PCIe datasheet peaks (not measured): 2.0 TB/s, dense fp16/bf16 756, fp32 51 TFLOP/s"},
    {"H100", 3350, 989e3, 989e3, 67e3,
     "NVIDIA H100 SXM5 datasheet peaks (not measured): 3.35 TB/s, dense fp16/bf16 989, fp32 67 TFLOP/s"},
}};

}  // namespace

Ceilings known_ceilings(const DeviceInfo& device, const std::string& dtype) {
  for (const auto& k : kKnown) {
    if (device.name.find(k.name_part) == std::string::npos) continue;
    const double gflops = dtype == "f16" ? k.fp16_gflops : dtype == "bf16" ? k.bf16_gflops : k.fp32_gflops;
    return {gflops, k.gbps, k.source};
  }
  return {};
}

double attainable_gflops(const Ceilings& c, double flops, double bytes) {
  if (bytes <= 0 || flops <= 0) return 0;
  const double memory = c.gbps > 0 ? c.gbps * flops / bytes : 0;
  if (c.gflops > 0 && memory > 0) return std::min(c.gflops, memory);
  return std::max(c.gflops, memory);
}

}  // namespace attn

// A device's roofline ceilings: the best compute rate and memory bandwidth
// the report holds configurations against.
#pragma once

#include <string>

#include "tuner/device/device.hpp"

namespace attn {

struct Ceilings {
  double gflops = 0;   // compute ceiling for the shape's element type; 0 = unknown
  double gbps = 0;     // memory ceiling; 0 = unknown
  std::string source;  // where the figures come from, said in the report
};

// From a small table of known devices: H200 ceilings measured on the GPU
// machine (../shared/ANCHORS.md), H100 datasheet peaks. DTYPE picks the compute
// ceiling: f16 and bf16 are tensor-core GEMM rates, anything else (f32_f16
// computes in fp32) the plain fp32 rate. All zero for an unknown device.
Ceilings known_ceilings(const DeviceInfo& device, const std::string& dtype);

// The roofline's attainable GFLOP/s for a run of FLOPS over BYTES:
// min(compute ceiling, bandwidth * FLOPS / BYTES), with what is known; 0 when nothing is.
double attainable_gflops(const Ceilings& ceilings, double flops, double bytes);

}  // namespace attn

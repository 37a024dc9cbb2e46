// What a configuration means on one shape, before any device is involved: its
// -D options, its launches' geometry and its workspace size, all evaluated
// from the spec's expressions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/spec/expression.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// A spec's tensor map with its expressions evaluated (TensorMapSpec).
struct TensorMapPlan {
  std::string buffer, element;
  std::vector<std::uint64_t> dims;
  std::vector<std::uint32_t> box;
  int swizzle = 0;
};

struct LaunchPlan {
  std::vector<Define> defines;  // the params, then the spec's defines
  std::vector<Launch> launches;
  std::vector<std::string> entries;  // distinct entry points, in launch order
  std::size_t workspace_bytes = 0;
  std::vector<TensorMapPlan> tensor_maps;
};

// compute_units where the shape's variables lack it (no device at hand): an
// H100 / H200's multiprocessors.
inline constexpr long long kPlanningComputeUnits = 132;

// Blocks of one thread-block cluster at most (Hopper: 8 portable, 16 with the
// non-portable attribute, which the CUDA backend sets above 8).
inline constexpr std::uint64_t kMaxClusterBlocks = 16;

// Bindings with compute_units (kComputeUnitsVariable) set to the device's count.
Bindings with_compute_units(Bindings shape_variables, int compute_units);

// Throws Outcome{skipped} when a constraint is false, an expression cannot be
// evaluated, or a launch is empty.
LaunchPlan plan_launches(const KernelSpec& kernel, const Config& config, const Bindings& shape_variables);

// "-D BLOCK_M=32 -D DK=128": how a result records its exact options.
std::string defines_string(const std::vector<Define>& defines);

// What tells one program from another: the defines, and the entries it must
// hold (two kernels of a spec may share defines; a template instance's
// arguments may be shape variables the defines lack).
std::string program_key(const std::vector<Define>& defines, const std::vector<std::string>& entries);

// ENTRY with every parameter of CONFIG and name of BINDINGS among its template
// arguments replaced by its value: "attn<BLOCK_M, STAGE>" -> "attn<64, true>".
// A plain name is returned as is.
std::string instantiate_entry(const std::string& entry, const Bindings& bindings, const Config& config = {});

}  // namespace attn

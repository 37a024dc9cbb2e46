// One configuration from the command line: `--set BLOCK_M=64,DV_TILE=32` over
// a preset (or the kernel's baseline), as `bench` and `determinism` take it.
#pragma once

#include <string>

#include "tuner/spec/spec.hpp"

namespace attn {

// Every parameter of KERNEL, in its order: PRESET's values (the baseline's when
// PRESET is empty) overridden by ASSIGNMENTS. Throws UsageError naming the bad
// assignment, an unknown parameter or preset, or the parameters left without a value.
Config config_from_assignments(const KernelSpec& kernel, const std::string& preset, const std::string& assignments);

}  // namespace attn

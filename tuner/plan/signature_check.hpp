// A launch's arguments checked against the compiled kernel's parameters
// (Device::parameters) before its first run: count, pointer or value, and the
// size of each value, so that a wrong binding is one clear error naming the
// spec argument and the kernel parameter instead of a vague launch failure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/plan/kernel_arguments.hpp"

namespace attn {

// The first mismatch between ARGUMENTS (then TENSOR_MAPS TMA maps of
// TENSOR_MAP_BYTES each) and ENTRY's PARAMETERS, as one sentence; empty when
// they agree as far as PARAMETERS tell (unknown fields are not compared).
std::string signature_mismatch(const std::string& entry, const std::vector<KernelParameter>& parameters,
                               const std::vector<BoundArgument>& arguments, std::size_t tensor_maps = 0,
                               std::size_t tensor_map_bytes = 128);

}  // namespace attn

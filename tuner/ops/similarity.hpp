// The "similarity" operation (kernels/common/similarity_params.h):
// multi-head attention similarity of N queries and M keys, the mean over
// heads of the projected dot products over a temperature, in fp32.
#pragma once

#include "tuner/ops/operation.hpp"

namespace attn {

const Operation& similarity_operation();

}  // namespace attn

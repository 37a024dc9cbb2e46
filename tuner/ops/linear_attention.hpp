// The "linear_attention" operation (kernels/common/linear_attention_params.h):
// linear attention with the elu + 1 feature map over [M][d], fp32.
#pragma once

#include "tuner/ops/operation.hpp"

namespace attn {

const Operation& linear_attention_operation();

}  // namespace attn

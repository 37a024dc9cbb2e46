// The "multihead_attention" operation (kernels/common/multihead_params.h): seed
// 002's standard multi-head attention over an [N][d_model] layout, fp32, and
// its sliding-window attention as the windowed case (h = 1, window = w).
#pragma once

#include "tuner/ops/operation.hpp"

namespace attn {

const Operation& multihead_attention_operation();

}  // namespace attn

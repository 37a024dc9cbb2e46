// The "deformable_attention" operation (kernels/common/deformable_params.h):
// Deformable-DETR's multi-scale deformable attention forward in fp32, value
// maps at up to DEFORMABLE_MAX_LEVELS levels given by shape fields H0..H4, W0..W4.
#pragma once

#include "tuner/ops/operation.hpp"

namespace attn {

const Operation& deformable_operation();

}  // namespace attn

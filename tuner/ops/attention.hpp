// The "attention" operation (kernels/common/attn_params.h): prefill with any
// query length and single-query decode, causal / window / additive mask /
// ALiBi / sinks / GQA, in f32_f16, f16 or bf16.
#pragma once

#include "tuner/ops/operation.hpp"

namespace attn {

const Operation& attention_operation();

}  // namespace attn

// The linear_attention operation's shape, typed (see kernels/common/linear_attention_params.h).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "common/linear_attention_params.h"

namespace attn {

struct LinearAttentionShape {
  int M = 1;                      // rows (tokens)
  int d = 4;                      // feature dimension
  std::string inputs = "random";  // or the name of a fixed example (linear_attention_examples.hpp)

  static LinearAttentionShape from_json(const nlohmann::json& fields);
  linear_attention_params params() const;
  std::size_t elements() const { return std::size_t(M) * d; }
};

}  // namespace attn

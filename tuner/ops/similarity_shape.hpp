// The similarity operation's shape, typed (see kernels/common/similarity_params.h).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "common/similarity_params.h"

namespace attn {

struct SimilarityShape {
  int N = 1, M = 1, D = 4, heads = 1, head_dim = 4;
  double temperature = 1.0;
  bool keys_ahead = false;  // the projected keys are an input (database search), not computed by the kernels

  static SimilarityShape from_json(const nlohmann::json& fields);
  similarity_params params() const;

  int proj_dim() const { return heads * head_dim; }
  double scale() const { return 1.0 / (heads * temperature); }
  std::size_t pairs() const { return std::size_t(N) * M; }
  // Standard deviation of an output element for the generated inputs (inputs
  // uniform in [-1, 1], weights uniform with variance 1/D): tolerances scale with it.
  double output_spread() const;
};

}  // namespace attn

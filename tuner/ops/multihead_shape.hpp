// The multihead_attention operation's shape, typed (see kernels/common/multihead_params.h).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "common/multihead_params.h"

namespace attn {

struct MultiheadShape {
  int N = 1;        // rows (tokens)
  int d_model = 4;  // h heads of d_k columns
  int h = 1;
  int window = 0;  // > 0: |i - j| <= window
  double scale = 0;
  std::string inputs = "random";  // or the name of a fixed example (multihead_examples.hpp)

  static MultiheadShape from_json(const nlohmann::json& fields);
  multihead_params params() const;

  int d_k() const { return d_model / h; }
  std::size_t elements() const { return std::size_t(N) * d_model; }
  // Keys row i attends to: [first_key(i), last_key(i)].
  int first_key(int i) const;
  int last_key(int i) const;
  // (row, key) pairs attended per head: the FLOP count's basis.
  double attended_pairs() const;
};

}  // namespace attn

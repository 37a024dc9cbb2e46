// The attention operation's shape, typed (see kernels/common/attn_params.h).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/attn_params.h"

namespace attn {

enum class AttnDtype { F32_F16 = 0, F16 = 1, BF16 = 2 };

struct AttentionShape {
  AttnDtype dtype = AttnDtype::F32_F16;
  int B = 1, Hq = 1, Hkv = 1, Nq = 1, Nkv = 1, D = 64;
  bool causal = false;
  int window = 0;
  bool mask = false;
  bool sinks = false;
  double max_bias = 0;
  double scale = 0;

  static AttentionShape from_json(const nlohmann::json& fields);
  attn_params params() const;

  int kv_offset() const { return Nkv - Nq; }
  std::size_t q_elements() const { return std::size_t(B) * Hq * Nq * D; }
  std::size_t kv_elements() const { return std::size_t(B) * Hkv * Nkv * D; }
  std::size_t mask_elements() const { return mask ? std::size_t(B) * Nq * Nkv : 0; }
  // Key range row i attends to before the mask: [first, last], empty when first > last.
  int first_key(int i) const;
  int last_key(int i) const;
  // (query, key) pairs attended, ignoring -inf mask entries: the FLOP count's basis.
  double attended_pairs() const;
  double alibi_slope(int head) const;
};

const char* dtype_name(AttnDtype dtype);
std::size_t q_bytes_per_element(AttnDtype dtype);   // also O's
std::size_t kv_bytes_per_element(AttnDtype dtype);

}  // namespace attn

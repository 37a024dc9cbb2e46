// The deformable attention operation's shape, typed (see kernels/common/deformable_params.h).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "common/deformable_params.h"

namespace attn {

struct DeformableShape {
  int B = 1, Nq = 1, heads = 1, channels = 1, levels = 1, points = 1;
  std::array<int, DEFORMABLE_MAX_LEVELS> level_h{}, level_w{};

  // Reads B, Nq, heads, channels, levels, points and H0..H4, W0..W4.
  static DeformableShape from_json(const nlohmann::json& fields);
  // An error message, or empty when the shape is valid.
  std::string check() const;
  deformable_params params() const;

  int level_start(int l) const;
  int values_per_image() const { return level_start(levels); }  // S = sum of H_l * W_l
  std::size_t value_elements() const { return std::size_t(B) * values_per_image() * heads * channels; }
  std::size_t samples() const { return std::size_t(B) * Nq * heads * levels * points; }  // (query, head, level, point)
  std::size_t loc_elements() const { return samples() * 2; }
  std::size_t attn_elements() const { return samples(); }
  std::size_t out_elements() const { return std::size_t(B) * Nq * heads * channels; }
};

// "H0", "W3": the shape field of level L's height or width.
std::string level_field(char dim, int l);

}  // namespace attn

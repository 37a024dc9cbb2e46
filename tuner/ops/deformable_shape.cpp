#include "tuner/ops/deformable_shape.hpp"

#include <fmt/format.h>

namespace attn {

std::string level_field(char dim, int l) { return fmt::format("{}{}", dim, l); }

DeformableShape DeformableShape::from_json(const nlohmann::json& f) {
  DeformableShape s;
  s.B = f.at("B").get<int>();
  s.Nq = f.at("Nq").get<int>();
  s.heads = f.at("heads").get<int>();
  s.channels = f.at("channels").get<int>();
  s.levels = f.at("levels").get<int>();
  s.points = f.at("points").get<int>();
  for (int l = 0; l < DEFORMABLE_MAX_LEVELS; ++l) {
    s.level_h[l] = f.at(level_field('H', l)).get<int>();
    s.level_w[l] = f.at(level_field('W', l)).get<int>();
  }
  return s;
}

std::string DeformableShape::check() const {
  for (auto [name, v] : {std::pair{"B", B}, {"Nq", Nq}, {"heads", heads}, {"channels", channels}, {"points", points}})
    if (v < 1) return fmt::format("{} must be at least 1 (got {})", name, v);
  if (levels < 1 || levels > DEFORMABLE_MAX_LEVELS)
    return fmt::format("levels must be 1 to {} (got {})", DEFORMABLE_MAX_LEVELS, levels);
  for (int l = 0; l < DEFORMABLE_MAX_LEVELS; ++l) {
    const bool used = l < levels;
    for (auto [dim, v] : {std::pair{'H', level_h[l]}, {'W', level_w[l]}}) {
      if (used && v < 1) return fmt::format("{} must be at least 1: level {} of {} is used", level_field(dim, l), l, levels);
      if (!used && v != 0)
        return fmt::format("{} is set but levels is {}: only H0..H{} and W0..W{} may be given", level_field(dim, l), levels,
                           levels - 1, levels - 1);
    }
  }
  // Kernels index with 32-bit integers.
  long long values = 0;
  for (int l = 0; l < levels; ++l) values += (long long)level_h[l] * level_w[l];
  if ((long long)B * values * heads * channels >= (1ll << 31) ||
      (long long)B * Nq * heads * levels * points * 2 >= (1ll << 31) || (long long)B * Nq * heads * channels >= (1ll << 31))
    return "value, loc and out must each have fewer than 2^31 elements";
  return {};
}

int DeformableShape::level_start(int l) const {
  int start = 0;
  for (int i = 0; i < l; ++i) start += level_h[i] * level_w[i];
  return start;
}

deformable_params DeformableShape::params() const {
  deformable_params p{};
  p.B = B;
  p.Nq = Nq;
  p.heads = heads;
  p.channels = channels;
  p.levels = levels;
  p.points = points;
  p.S = values_per_image();
  for (int l = 0; l < levels; ++l) {
    p.level_h[l] = level_h[l];
    p.level_w[l] = level_w[l];
    p.level_start[l] = level_start(l);
  }
  return p;
}

}  // namespace attn

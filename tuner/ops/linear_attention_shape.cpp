#include "tuner/ops/linear_attention_shape.hpp"

namespace attn {

LinearAttentionShape LinearAttentionShape::from_json(const nlohmann::json& f) {
  LinearAttentionShape s;
  s.M = f.at("M").get<int>();
  s.d = f.at("d").get<int>();
  s.inputs = f.at("inputs").get<std::string>();
  return s;
}

linear_attention_params LinearAttentionShape::params() const {
  linear_attention_params p{};
  p.M = M;
  p.d = d;
  return p;
}

}  // namespace attn

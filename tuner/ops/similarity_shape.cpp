#include "tuner/ops/similarity_shape.hpp"

#include <cmath>

namespace attn {

SimilarityShape SimilarityShape::from_json(const nlohmann::json& f) {
  SimilarityShape s;
  s.N = f.at("N").get<int>();
  s.M = f.at("M").get<int>();
  s.D = f.at("D").get<int>();
  s.heads = f.at("heads").get<int>();
  s.head_dim = f.at("head_dim").get<int>();
  s.temperature = f.at("temperature").get<double>();
  s.keys_ahead = f.at("keys_ahead").get<int>() != 0;
  return s;
}

similarity_params SimilarityShape::params() const {
  similarity_params p{};
  p.N = N;
  p.M = M;
  p.D = D;
  p.heads = heads;
  p.head_dim = head_dim;
  p.proj_dim = proj_dim();
  p.scale = static_cast<float>(scale());
  p.keys_ahead = keys_ahead;
  return p;
}

double SimilarityShape::output_spread() const {
  // A projected feature has variance D * E[x^2] * E[w^2] = D * (1/3) * (1/D) = 1/3;
  // an output sums proj_dim products of two of them.
  return std::sqrt(double(proj_dim())) / 3.0 * std::abs(scale());
}

}  // namespace attn

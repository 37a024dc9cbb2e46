#include "tuner/ops/multihead_shape.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

MultiheadShape MultiheadShape::from_json(const nlohmann::json& f) {
  MultiheadShape s;
  s.N = f.at("N").get<int>();
  s.d_model = f.at("d_model").get<int>();
  s.h = f.at("h").get<int>();
  s.window = f.at("window").get<int>();
  s.inputs = f.at("inputs").get<std::string>();
  const int d_k = s.h > 0 ? s.d_model / s.h : 1;
  s.scale = f.at("scale").is_null() ? 1.0 / std::sqrt(double(std::max(1, d_k))) : f.at("scale").get<double>();
  return s;
}

multihead_params MultiheadShape::params() const {
  multihead_params p{};
  p.N = N;
  p.d_model = d_model;
  p.h = h;
  p.d_k = d_k();
  p.window = window;
  p.scale = static_cast<float>(scale);
  return p;
}

int MultiheadShape::first_key(int i) const { return window > 0 ? std::max(0, i - window) : 0; }

int MultiheadShape::last_key(int i) const { return window > 0 ? std::min(N - 1, i + window) : N - 1; }

double MultiheadShape::attended_pairs() const {
  if (window == 0) return double(N) * N;
  double pairs = 0;
  for (int i = 0; i < N; ++i) pairs += last_key(i) - first_key(i) + 1;
  return pairs;
}

}  // namespace attn

#include "tuner/ops/attention_shape.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

AttentionShape AttentionShape::from_json(const nlohmann::json& f) {
  AttentionShape s;
  const std::string dtype = f.at("dtype").get<std::string>();
  s.dtype = dtype == "f16" ? AttnDtype::F16 : dtype == "bf16" ? AttnDtype::BF16 : AttnDtype::F32_F16;
  s.B = f.at("B").get<int>();
  s.Hq = f.at("Hq").get<int>();
  s.Hkv = f.at("Hkv").get<int>();
  s.Nq = f.at("Nq").get<int>();
  s.Nkv = f.at("Nkv").get<int>();
  s.D = f.at("D").get<int>();
  s.causal = f.at("causal").get<int>() != 0;
  s.window = f.at("window").get<int>();
  s.mask = f.at("mask").get<int>() != 0;
  s.sinks = f.at("sinks").get<int>() != 0;
  s.max_bias = f.at("max_bias").get<double>();
  s.scale = f.at("scale").is_null() ? 1.0 / std::sqrt(double(s.D)) : f.at("scale").get<double>();
  return s;
}

attn_params AttentionShape::params() const {
  attn_params p{};
  p.B = B;
  p.Hq = Hq;
  p.Hkv = Hkv;
  p.Nq = Nq;
  p.Nkv = Nkv;
  p.D = D;
  p.q_per_kv = Hq / Hkv;
  p.kv_offset = kv_offset();
  p.causal = causal;
  p.window = window;
  p.has_mask = mask;
  p.has_sinks = sinks;
  p.scale = static_cast<float>(scale);
  p.max_bias = static_cast<float>(max_bias);
  p.n_head_log2 = 1;
  while (p.n_head_log2 * 2 <= Hq) p.n_head_log2 *= 2;
  p.m0 = static_cast<float>(std::pow(2.0, -max_bias / p.n_head_log2));
  p.m1 = static_cast<float>(std::pow(2.0, -max_bias / 2.0 / p.n_head_log2));
  return p;
}

int AttentionShape::first_key(int i) const {
  const int pos = kv_offset() + i;
  return window > 0 ? std::max(0, pos - window) : 0;
}

int AttentionShape::last_key(int i) const {
  const int pos = kv_offset() + i;
  int last = Nkv - 1;
  if (causal) last = std::min(last, pos);
  if (window > 0) last = std::min(last, pos + window);
  return last;
}

double AttentionShape::attended_pairs() const {
  double pairs = 0;
  for (int i = 0; i < Nq; ++i) pairs += std::max(0, last_key(i) - first_key(i) + 1);
  return pairs;
}

double AttentionShape::alibi_slope(int h) const {
  if (max_bias <= 0) return 0;
  const attn_params p = params();
  // Slopes from the same float bases the kernels get, powered in double.
  return h < p.n_head_log2 ? std::pow(double(p.m0), h + 1) : std::pow(double(p.m1), 2 * (h - p.n_head_log2) + 1);
}

const char* dtype_name(AttnDtype d) {
  switch (d) {
    case AttnDtype::F16: return "f16";
    case AttnDtype::BF16: return "bf16";
    default: return "f32_f16";
  }
}

std::size_t q_bytes_per_element(AttnDtype d) { return d == AttnDtype::F32_F16 ? 4 : 2; }
std::size_t kv_bytes_per_element(AttnDtype) { return 2; }

}  // namespace attn

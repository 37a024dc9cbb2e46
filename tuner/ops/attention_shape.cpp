#include "tuner/ops/attention_shape.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

AttentionShape AttentionShape::from_json(const nlohmann::json& f) {
  AttentionShape s;
  const std::string dtype = f.at("dtype").get<std::string>();
  s.dtype = dtype == "f16"    ? AttnDtype::F16
            : dtype == "bf16" ? AttnDtype::BF16
            : dtype == "f32"  ? AttnDtype::F32
                              : AttnDtype::F32_F16;
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
  // Fields added with layouts: absent from shapes recorded before them.
  const std::string layout = f.value("layout", "bhsd");
  s.layout = layout == "bshd" ? AttnLayout::BSHD : layout == "thd" ? AttnLayout::THD : AttnLayout::BHSD;
  s.seqlens_q = f.value("seqlens_q", std::vector<int>{});
  s.seqlens_k = f.value("seqlens_k", std::vector<int>{});
  s.page_size = f.value("page_size", 0);
  s.num_pages = f.value("num_pages", 0);
  s.sequence_offset = f.value("sequence_offset", 0);
  // Fields added with mask forms, ALiBi conventions and soft-capping.
  s.mask_f32 = f.value("mask_dtype", "f16") == "f32";
  const std::string mask_layout = f.value("mask_layout", "bqk");
  s.mask_layout = mask_layout == "bhqk"  ? MaskLayout::BHQK
                  : mask_layout == "hqk" ? MaskLayout::HQK
                  : mask_layout == "qk"  ? MaskLayout::QK
                                         : MaskLayout::BQK;
  s.alibi_mode = f.value("alibi_mode", "distance") == "mask_scaled" ? AlibiMode::MaskScaled : AlibiMode::Distance;
  s.softcap = f.value("softcap", 0.0);
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
  const TensorStrides qs = q_strides(), ks = kv_strides();
  p.layout = static_cast<int>(layout);
  p.stride_q_b = static_cast<int>(qs.b);
  p.stride_q_h = static_cast<int>(qs.h);
  p.stride_q_n = static_cast<int>(qs.n);
  p.stride_k_b = static_cast<int>(ks.b);
  p.stride_k_h = static_cast<int>(ks.h);
  p.stride_k_n = static_cast<int>(ks.n);
  p.page_size = page_size;
  p.num_pages = pool_pages();
  p.max_pages = max_pages();
  p.stride_k_page = static_cast<int>(paged() ? page_stride() : 0);
  p.softcap = static_cast<float>(softcap);
  p.alibi_mode = static_cast<int>(alibi_mode);
  p.mask_f32 = mask_f32;
  const TensorStrides ms = mask_strides();
  p.stride_mask_b = static_cast<int>(ms.b);
  p.stride_mask_h = static_cast<int>(ms.h);
  p.stride_mask_n = static_cast<int>(ms.n);
  return p;
}

TensorStrides AttentionShape::q_strides() const {
  const long long d = D;
  switch (layout) {
    case AttnLayout::BSHD: return {d * Hq * Nq, d, d * Hq};
    case AttnLayout::THD: return {0, d, d * Hq};
    default: return {d * Hq * Nq, d * Nq, d};
  }
}

TensorStrides AttentionShape::kv_strides() const {
  const long long d = D;
  if (paged() || layout == AttnLayout::THD) return {0, d, d * Hkv};  // token-major inside a page / the packed tokens
  if (layout == AttnLayout::BSHD) return {d * Hkv * Nkv, d, d * Hkv};
  return {d * Hkv * Nkv, d * Nkv, d};
}

std::size_t AttentionShape::mask_elements() const {
  if (!mask) return 0;
  const std::size_t rows = std::size_t(Nq) * std::size_t(Nkv);
  switch (mask_layout) {
    case MaskLayout::BHQK: return std::size_t(B) * std::size_t(Hq) * rows;
    case MaskLayout::HQK: return std::size_t(Hq) * rows;
    case MaskLayout::QK: return rows;
    default: return std::size_t(B) * rows;
  }
}

TensorStrides AttentionShape::mask_strides() const {
  const long long rows = (long long)Nq * Nkv;
  switch (mask_layout) {
    case MaskLayout::BHQK: return {Hq * rows, rows, Nkv};
    case MaskLayout::HQK: return {0, rows, Nkv};
    case MaskLayout::QK: return {0, 0, Nkv};
    default: return {rows, 0, Nkv};
  }
}

int AttentionShape::first_key(int i, int nq, int nk) const {
  const int pos = nk - nq + i;
  return window > 0 ? std::max(0, pos - window) : 0;
}

int AttentionShape::last_key(int i, int nq, int nk) const {
  const int pos = nk - nq + i;
  int last = nk - 1;
  if (causal) last = std::min(last, pos);
  if (window > 0) last = std::min(last, pos + window);
  return last;
}

double AttentionShape::attended_pairs(int nq, int nk) const {
  double pairs = 0;
  for (int i = 0; i < nq; ++i) pairs += std::max(0, last_key(i, nq, nk) - first_key(i, nq, nk) + 1);
  return pairs;
}

double AttentionShape::alibi_slope(int h) const {
  if (max_bias <= 0) return alibi_mode == AlibiMode::MaskScaled ? 1 : 0;
  const attn_params p = params();
  // Slopes from the same float bases the kernels get, powered in double.
  return h < p.n_head_log2 ? std::pow(double(p.m0), h + 1) : std::pow(double(p.m1), 2 * (h - p.n_head_log2) + 1);
}

const char* dtype_name(AttnDtype d) {
  switch (d) {
    case AttnDtype::F16: return "f16";
    case AttnDtype::BF16: return "bf16";
    case AttnDtype::F32: return "f32";
    default: return "f32_f16";
  }
}

const char* layout_name(AttnLayout layout) {
  switch (layout) {
    case AttnLayout::BSHD: return "bshd";
    case AttnLayout::THD: return "thd";
    default: return "bhsd";
  }
}

const char* mask_layout_name(MaskLayout layout) {
  switch (layout) {
    case MaskLayout::BHQK: return "bhqk";
    case MaskLayout::HQK: return "hqk";
    case MaskLayout::QK: return "qk";
    default: return "bqk";
  }
}

const char* alibi_mode_name(AlibiMode mode) { return mode == AlibiMode::MaskScaled ? "mask_scaled" : "distance"; }

std::size_t q_bytes_per_element(AttnDtype d) { return d == AttnDtype::F32_F16 || d == AttnDtype::F32 ? 4 : 2; }
std::size_t kv_bytes_per_element(AttnDtype d) { return d == AttnDtype::F32 ? 4 : 2; }

}  // namespace attn

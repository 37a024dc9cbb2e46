#include "tuner/ops/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "tuner/core/half.hpp"
#include "tuner/core/parallel_for.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/ops/attention_layout.hpp"
#include "tuner/ops/attention_reference.hpp"
#include "tuner/ops/pod_bytes.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

void store_value(std::vector<std::byte>& out, std::size_t index, std::size_t elem_bytes, AttnDtype dtype, float x) {
  std::byte* dst = out.data() + index * elem_bytes;
  if (elem_bytes == 4) {
    std::memcpy(dst, &x, 4);
  } else {
    const std::uint16_t w = dtype == AttnDtype::BF16 ? f32_to_bf16(x) : f32_to_f16(x);
    std::memcpy(dst, &w, 2);
  }
}

float load_value(const std::vector<std::byte>& buf, std::size_t index, std::size_t elem_bytes, AttnDtype dtype) {
  if (elem_bytes == 4) {
    float x;
    std::memcpy(&x, buf.data() + index * 4, 4);
    return x;
  }
  std::uint16_t w;
  std::memcpy(&w, buf.data() + index * 2, 2);
  return dtype == AttnDtype::BF16 ? bf16_to_f32(w) : f16_to_f32(w);
}

std::vector<std::byte> nan_element(std::size_t elem_bytes, AttnDtype dtype) {
  std::vector<std::byte> word(elem_bytes);
  if (elem_bytes == 4) {
    const std::uint32_t nan = 0x7fc00000u;
    std::memcpy(word.data(), &nan, 4);
  } else {
    const std::uint16_t nan = dtype == AttnDtype::BF16 ? 0x7fc0u : 0x7e00u;
    std::memcpy(word.data(), &nan, 2);
  }
  return word;
}

std::vector<std::byte> repeated(const std::vector<std::byte>& word, std::size_t count) {
  std::vector<std::byte> out(word.size() * count);
  for (std::size_t e = 0; e < count; ++e) std::memcpy(out.data() + e * word.size(), word.data(), word.size());
  return out;
}

std::vector<std::byte> int32_bytes(const std::vector<std::int32_t>& values) {
  std::vector<std::byte> out(std::max<std::size_t>(16, values.size() * 4));
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * 4);
  return out;
}

ElementType element_type(AttnDtype dtype) {
  switch (dtype) {
    case AttnDtype::F16: return ElementType::F16;
    case AttnDtype::BF16: return ElementType::BF16;
    default: return ElementType::F32;
  }
}

class AttentionProblem final : public Problem {
 public:
  AttentionProblem(const AttentionShape& shape, std::uint64_t seed) : s_(shape), seed_(seed), layout_(shape, seed) {
    const std::size_t qb = q_bytes_per_element(s_.dtype), kb = kv_bytes_per_element(s_.dtype);
    const AttnDtype kv_dtype = this->kv_dtype();
    HostBuffer q{"q", false, std::vector<std::byte>(layout_.q_elements() * qb), {}};
    // Pool pages no sequence owns, and the tail of a sequence's last page, hold
    // NaN: a kernel that reads past the block table's keys cannot pass.
    HostBuffer k{"k", false, repeated(nan_element(kb, kv_dtype), layout_.kv_elements()), {}};
    HostBuffer v{"v", false, k.data, {}};
    // Disabled inputs still get a small valid buffer: every kernel takes every argument.
    HostBuffer mask{"mask",
                    false,
                    std::vector<std::byte>(std::max<std::size_t>(16, s_.mask_elements() * s_.mask_bytes_per_element())),
                    {}};
    HostBuffer sinks{"sinks", false, std::vector<std::byte>(std::max<std::size_t>(16, s_.sinks ? s_.Hq * 4 : 0)), {}};
    HostBuffer o{"o", true, std::vector<std::byte>(layout_.q_elements() * qb), nan_element(qb, s_.dtype)};

    // Each sequence's data is its own stream, drawn in logical order [H][N][D]
    // and stored through the layout: sequence b is the same inside any batch
    // size and in every layout. Sequences write disjoint elements: drawn in parallel.
    parallel_for(std::size_t(s_.B) * 4, [&](std::size_t task) {
      const int b = int(task / 4);
      const std::uint64_t sequence = std::uint64_t(s_.sequence_offset + b);
      switch (task % 4) {
        case 0: {
          UniformStream r(stream_seed(seed_, "q", sequence));
          for (int h = 0; h < s_.Hq; ++h)
            for (int i = 0; i < layout_.q_len(b); ++i)
              for (int d = 0; d < s_.D; ++d)
                store_value(q.data, layout_.q_index(b, h, i, d), qb, s_.dtype, float(r.next(-1, 1)));
          break;
        }
        case 1:
        case 2: {
          HostBuffer& kv = task % 4 == 1 ? k : v;
          UniformStream r(stream_seed(seed_, task % 4 == 1 ? "k" : "v", sequence));
          for (int h = 0; h < s_.Hkv; ++h)
            for (int j = 0; j < layout_.k_len(b); ++j)
              for (int d = 0; d < s_.D; ++d)
                store_value(kv.data, layout_.k_index(b, h, j, d), kb, kv_dtype, float(r.next(-1, 1)));
          break;
        }
        default:
          if (s_.mask && batch_mask()) fill_mask(mask.data, b);
      }
    });
    if (s_.mask && !batch_mask()) fill_shared_mask(mask.data);
    if (s_.sinks) {
      UniformStream rs(stream_seed(seed_, "sinks", 0));
      for (int h = 0; h < s_.Hq; ++h) store_value(sinks.data, std::size_t(h), 4, AttnDtype::F32_F16, float(rs.next(-2, 2)));
    }
    buffers_ = {std::move(q), std::move(k), std::move(v), std::move(mask), std::move(sinks), std::move(o)};
    if (s_.has_sequence_buffers()) {
      buffers_.push_back({"cu_seqlens_q", false, int32_bytes(layout_.cu_seqlens_q()), {}});
      buffers_.push_back({"cu_seqlens_k", false, int32_bytes(layout_.cu_seqlens_k()), {}});
      buffers_.push_back({"block_table", false, int32_bytes(layout_.block_table()), {}});
    }
  }

  // Makes this one-query problem (a decode step over a cache of Nkv keys) hold
  // row T of AT_ONCE's queries and the first Nkv of its keys: a decoder's
  // state once the token at that position was appended.
  void cut_from(const AttentionProblem& at_once, int t) {
    const std::size_t qb = q_bytes_per_element(s_.dtype), kb = kv_bytes_per_element(s_.dtype);
    auto copy = [](std::vector<std::byte>& to, std::size_t to_index, const std::vector<std::byte>& from,
                   std::size_t from_index, std::size_t bytes) {
      std::memcpy(to.data() + to_index * bytes, from.data() + from_index * bytes, bytes);
    };
    const auto& from = at_once.buffers_;
    const AttentionLayout& a = at_once.layout_;
    for (int h = 0; h < s_.Hq; ++h)
      for (int d = 0; d < s_.D; ++d)
        copy(buffers_[0].data, layout_.q_index(0, h, 0, d), from[0].data, a.q_index(0, h, t, d), qb);
    for (int h = 0; h < s_.Hkv; ++h)
      for (int j = 0; j < layout_.k_len(0); ++j)
        for (int d = 0; d < s_.D; ++d)
          for (int kv : {1, 2})
            copy(buffers_[std::size_t(kv)].data, layout_.k_index(0, h, j, d), from[std::size_t(kv)].data,
                 a.k_index(0, h, j, d), kb);
    if (s_.mask)
      for (int h = 0; h < (s_.mask_strides().h != 0 ? s_.Hq : 1); ++h)
        for (int j = 0; j < layout_.k_len(0); ++j)
          copy(buffers_[3].data, s_.mask_index(0, h, 0, j), from[3].data, at_once.s_.mask_index(0, h, t, j),
               s_.mask_bytes_per_element());
    reference_.clear();
  }

  std::vector<std::byte> params_bytes() const override { return pod_bytes(s_.params()); }

  std::vector<OutputDeclaration> outputs() const override {
    OutputDeclaration o{"o", element_type(s_.dtype), {}, {}};
    const auto n = [](int x) { return std::size_t(x); };
    switch (s_.layout) {
      case AttnLayout::BHSD: o.dims = {{"b", n(s_.B)}, {"h", n(s_.Hq)}, {"i", n(s_.Nq)}, {"d", n(s_.D)}}; break;
      case AttnLayout::BSHD: o.dims = {{"b", n(s_.B)}, {"i", n(s_.Nq)}, {"h", n(s_.Hq)}, {"d", n(s_.D)}}; break;
      case AttnLayout::THD: o.dims = {{"t", layout_.total_q()}, {"h", n(s_.Hq)}, {"d", n(s_.D)}}; break;
    }
    for (std::int32_t token : layout_.cu_seqlens_q()) o.sequence_offsets.push_back(std::size_t(token) * n(s_.Hq) * n(s_.D));
    return {o};
  }

  void precompute_reference(const Tolerance& tol) const override { reference(checked_rows(tol)); }
  bool keeps_reference() const override { return true; }
  std::vector<double> reference_values(const Tolerance& tol) const override { return reference(checked_rows(tol)); }
  bool adopt_reference(const Tolerance& tol, std::vector<double> values) const override {
    const std::size_t rows = checked_rows(tol).size();
    std::lock_guard lock(mutex_);
    if (values.size() != rows * std::size_t(s_.D)) return false;
    reference_ = std::move(values);
    return true;
  }

  double flops() const override {
    double pairs = 0;
    for (int b = 0; b < s_.B; ++b) pairs += s_.attended_pairs(layout_.q_len(b), layout_.k_len(b));
    return 4.0 * s_.Hq * pairs * s_.D;
  }

  // Each input read once, each output written once: the keys the sequences
  // hold, not the pool's unused pages.
  double bytes() const override {
    double total = 0;
    for (const auto& b : buffers_) {
      if (b.name == "mask" && !s_.mask) continue;
      if (b.name == "k" || b.name == "v") total += double(layout_.kv_used_elements() * kv_bytes_per_element(s_.dtype));
      else total += double(b.data.size());
    }
    return total;
  }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const std::vector<std::byte>& o = outputs.at(0);
    const std::size_t ob = q_bytes_per_element(s_.dtype);
    const OutputDeclaration names = this->outputs().front();
    VerifyReport r;
    r.rows_total = static_cast<long long>(layout_.rows());
    const NonFinite bad =
        find_nonfinite(layout_.q_elements(), [&](std::size_t e) { return std::isfinite(load_value(o, e, ob, s_.dtype)); });
    r.nonfinite = bad.count;
    if (bad.count > 0)
      r.worst = fmt::format("{} = {} (not written, or not finite)", names.element_name(bad.first),
                            load_value(o, bad.first, ob, s_.dtype));

    const auto& rows = checked_rows(tol);
    const auto& ref = reference(rows);
    double err2 = 0, ref2 = 0, worst_abs = -1;
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i) {
      int b, h, i;
      layout_.row_coordinates(rows[r_i], b, h, i);
      for (int d = 0; d < s_.D; ++d) {
        const double want = ref[r_i * s_.D + d];
        const std::size_t e = layout_.q_index(b, h, i, d);
        const double got = load_value(o, e, ob, s_.dtype);
        if (!std::isfinite(got)) continue;  // counted in nonfinite above
        const double diff = std::abs(got - want);
        err2 += diff * diff;
        ref2 += want * want;
        if (diff > worst_abs) {
          worst_abs = diff;
          if (r.nonfinite == 0) r.worst = fmt::format("{} = {:.7g}, expected {:.7g}", names.element_name(e), got, want);
        }
      }
    }
    r.rows_checked = static_cast<long long>(rows.size());
    r.max_abs = std::max(0.0, worst_abs);
    r.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    r.passed = r.nonfinite == 0 && r.rel_l2 <= tol.rel_l2 && r.max_abs <= tol.max_abs;
    return r;
  }

 private:
  AttnDtype kv_dtype() const {
    return s_.dtype == AttnDtype::BF16 ? AttnDtype::BF16 : s_.dtype == AttnDtype::F32 ? AttnDtype::F32 : AttnDtype::F16;
  }

  // Whether each sequence has its own mask (bqk, bhqk) rather than one the batch shares.
  bool batch_mask() const { return s_.mask_strides().b != 0; }
  int mask_heads() const { return s_.mask_strides().h != 0 ? s_.Hq : 1; }

  // One mask row: about 5% -inf (never at KEEP, so no row is masked out
  // entirely), else uniform in [-1, 0), or with mask_scaled ALiBi the
  // position -|POS - j| a decoder's mask holds.
  void fill_mask_row(std::vector<std::byte>& mask, UniformStream& rm, std::size_t at, int keep, int pos) const {
    for (int j = 0; j < s_.Nkv; ++j) {
      const double u = rm.next(0, 1);
      float x = -std::numeric_limits<float>::infinity();  // a masked entry draws no value
      if (keep < 0 || j == keep || u >= 0.05)
        x = s_.alibi_mode == AlibiMode::MaskScaled ? -float(std::abs(pos - j)) : float(rm.next(-1, 0));
      store_value(mask, at + std::size_t(j), s_.mask_bytes_per_element(), AttnDtype::F16, x);
    }
  }

  // Sequence B's mask (all its heads with bhqk), from the sequence's own stream.
  void fill_mask(std::vector<std::byte>& mask, int b) const {
    UniformStream rm(stream_seed(seed_, "mask", std::uint64_t(s_.sequence_offset + b)));
    const int nq = layout_.q_len(b), nk = layout_.k_len(b);
    for (int h = 0; h < mask_heads(); ++h)
      for (int i = 0; i < s_.Nq; ++i) {
        const int keep = std::clamp(nk - nq + i, 0, nk - 1);
        fill_mask_row(mask, rm, s_.mask_index(b, h, i, 0), keep, nk - nq + i);
      }
  }

  // The mask the batch shares (hqk, qk): the same whatever the batch. With
  // thd's uneven lengths no -inf entries, since no one column is attended by
  // every sequence's row.
  void fill_shared_mask(std::vector<std::byte>& mask) const {
    UniformStream rm(stream_seed(seed_, "mask", std::numeric_limits<std::uint64_t>::max()));
    for (int h = 0; h < mask_heads(); ++h)
      for (int i = 0; i < s_.Nq; ++i) {
        const int pos = s_.Nkv - s_.Nq + i;
        fill_mask_row(mask, rm, s_.mask_index(0, h, i, 0), s_.layout == AttnLayout::THD ? -2 : pos, pos);
      }
  }

  // The rows verified: all of them when few, else the corners plus a fixed random sample.
  const std::vector<std::size_t>& checked_rows(const Tolerance& tol) const {
    std::lock_guard lock(mutex_);
    const std::size_t total = layout_.rows();
    const std::size_t limit = tol.max_rows > 0 ? std::size_t(tol.max_rows) : 2048;
    if (!rows_.empty() && rows_limit_ == limit) return rows_;
    rows_limit_ = limit;
    const std::size_t last_len = std::size_t(layout_.q_len(s_.B - 1));
    rows_ = sample_rows(total, limit, seed_, {0, std::size_t(layout_.q_len(0) - 1), total - 1, total - last_len});
    reference_.clear();
    return rows_;
  }

  const std::vector<double>& reference(const std::vector<std::size_t>& rows) const {
    std::lock_guard lock(mutex_);
    if (!reference_.empty()) return reference_;
    // The inputs read through the layout into [B][H][N][D] blocks of the longest sequence's rows.
    AttentionValues in;
    const std::size_t qb = q_bytes_per_element(s_.dtype), kb = kv_bytes_per_element(s_.dtype);
    in.q.assign(s_.q_elements(), 0.0f);
    in.k.assign(s_.kv_elements(), 0.0f);
    in.v.assign(s_.kv_elements(), 0.0f);
    parallel_for(std::size_t(s_.B), [&](std::size_t task) {
      const int b = int(task);
      for (int h = 0; h < s_.Hq; ++h)
        for (int i = 0; i < layout_.q_len(b); ++i)
          for (int d = 0; d < s_.D; ++d)
            in.q[((std::size_t(b) * s_.Hq + h) * s_.Nq + i) * s_.D + d] =
                load_value(buffers_[0].data, layout_.q_index(b, h, i, d), qb, s_.dtype);
      for (int h = 0; h < s_.Hkv; ++h)
        for (int j = 0; j < layout_.k_len(b); ++j)
          for (int d = 0; d < s_.D; ++d) {
            const std::size_t at = ((std::size_t(b) * s_.Hkv + h) * s_.Nkv + j) * s_.D + d, e = layout_.k_index(b, h, j, d);
            in.k[at] = load_value(buffers_[1].data, e, kb, kv_dtype());
            in.v[at] = load_value(buffers_[2].data, e, kb, kv_dtype());
          }
    });
    auto widen = [](const HostBuffer& hb, std::size_t n, std::size_t eb, AttnDtype dt) {
      std::vector<float> out(n);
      for (std::size_t e = 0; e < n; ++e) out[e] = load_value(hb.data, e, eb, dt);
      return out;
    };
    if (s_.mask) in.mask = widen(buffers_[3], s_.mask_elements(), s_.mask_bytes_per_element(), AttnDtype::F16);
    if (s_.sinks) in.sinks = widen(buffers_[4], s_.Hq, 4, AttnDtype::F32_F16);
    reference_.assign(rows.size() * s_.D, 0.0);
    parallel_for(rows.size(), [&](std::size_t r_i) {
      int b, h, i;
      layout_.row_coordinates(rows[r_i], b, h, i);
      attention_reference_row(s_, in, b, h, i, reference_.data() + r_i * s_.D, {layout_.q_len(b), layout_.k_len(b)});
    });
    return reference_;
  }

  AttentionShape s_;
  std::uint64_t seed_;
  AttentionLayout layout_;
  mutable std::mutex mutex_;
  mutable std::vector<std::size_t> rows_;
  mutable std::size_t rows_limit_ = 0;
  mutable std::vector<double> reference_;
};

class AttentionOperation final : public Operation {
 public:
  std::string name() const override { return "attention"; }

  std::vector<ShapeField> shape_fields() const override {
    using T = ShapeField::Type;
    return {
        {"dtype",
         T::Choice,
         false,
         "f32_f16",
         {"f32_f16", "f16", "bf16", "f32"},
         "element types: f32_f16 = Q/O float, K/V half; f32 = all float"},
        {"B", T::Integer, true, nullptr, {}, "sequences in the batch"},
        {"Hq", T::Integer, true, nullptr, {}, "query heads"},
        {"Hkv", T::Integer, false, "Hq", {}, "key/value heads (GQA when fewer than Hq)"},
        {"Nq", T::Integer, true, nullptr, {}, "query rows per sequence (1 = decode)"},
        {"Nkv", T::Integer, false, "Nq", {}, "key/value rows per sequence"},
        {"D", T::Integer, true, nullptr, {}, "head dimension"},
        {"causal", T::Integer, false, 0, {}, "1: bottom-right aligned causal mask"},
        {"window", T::Integer, false, 0, {}, "sliding window half-width, 0 = off"},
        {"mask", T::Integer, false, 0, {}, "1: additive mask, [B][Nq][Nkv] unless mask_layout says otherwise"},
        {"mask_dtype", T::Choice, false, "f16", {"f16", "f32"}, "the mask's element type"},
        {"mask_layout",
         T::Choice,
         false,
         "bqk",
         {"bqk", "bhqk", "hqk", "qk"},
         "the mask's dimensions, the others broadcast: [B][Nq][Nkv] (shared by the heads), [B][Hq][Nq][Nkv], "
         "[Hq][Nq][Nkv] (shared by the batch), [Nq][Nkv]"},
        {"sinks", T::Integer, false, 0, {}, "1: one sink logit per query head"},
        {"max_bias", T::Number, false, 0.0, {}, "ALiBi max bias, 0 = off"},
        {"alibi_mode",
         T::Choice,
         false,
         "distance",
         {"distance", "mask_scaled"},
         "ALiBi as -slope * |pos - j| (distance) or slope * mask[j] with the mask holding -|pos - j| (mask_scaled, "
         "llama.cpp's; slope 1 when max_bias is 0)"},
        {"softcap",
         T::Number,
         false,
         0.0,
         {},
         "> 0: logit soft-capping, s = softcap * tanh(s / softcap) on the scaled score before mask and ALiBi"},
        {"scale", T::Number, false, nullptr, {}, "softmax scale (default 1/sqrt(D))"},
        {"layout",
         T::Choice,
         false,
         "bhsd",
         {"bhsd", "bshd", "thd"},
         "tensor layout: [B][H][N][D], [B][N][H][D], or packed variable-length tokens [T][H][D] with cu_seqlens"},
        {"seqlens_q",
         T::IntegerList,
         false,
         json::array(),
         {},
         "thd: query rows of each sequence, cycled over the batch (empty: drawn in [1, Nq])"},
        {"seqlens_k",
         T::IntegerList,
         false,
         json::array(),
         {},
         "thd: key rows of each sequence (empty: drawn in [its queries, Nkv], or seqlens_q + Nkv - Nq when listed)"},
        {"page_size", T::Integer, false, 0, {}, "> 0: K/V in a paged pool read through a scattered block table"},
        {"num_pages", T::Integer, false, 0, {}, "pages in the pool (0: twice B * ceil(Nkv / page_size))"},
    };
  }

  std::vector<std::string> variable_names() const override {
    return {"B",
            "Hq",
            "Hkv",
            "Nq",
            "Nkv",
            "D",
            "causal",
            "window",
            "mask",
            "sinks",
            "alibi",
            "q_per_kv",
            "DTYPE",
            "layout",
            "paged",
            "page_size",
            "num_pages",
            "max_pages",
            "stride_q_b",
            "stride_q_h",
            "stride_q_n",
            "stride_o_b",
            "stride_o_h",
            "stride_o_n",
            "stride_k_b",
            "stride_k_h",
            "stride_k_n",
            "stride_v_b",
            "stride_v_h",
            "stride_v_n",
            "stride_page",
            "mask_f32",
            "mask_bytes",
            "mask_heads",
            "mask_batches",
            "stride_mask_b",
            "stride_mask_h",
            "stride_mask_n",
            "alibi_mode",
            "n_head_log2",
            "has_softcap"};
  }

  Bindings variables(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    Bindings b{{"B", s.B},
               {"Hq", s.Hq},
               {"Hkv", s.Hkv},
               {"Nq", s.Nq},
               {"Nkv", s.Nkv},
               {"D", s.D},
               {"causal", s.causal},
               {"window", s.window},
               {"mask", s.mask},
               {"sinks", s.sinks},
               {"alibi", s.max_bias > 0},
               {"q_per_kv", s.Hq / s.Hkv},
               {"DTYPE", static_cast<long long>(s.dtype)}};
    const TensorStrides q = s.q_strides(), k = s.kv_strides();
    b["layout"] = static_cast<long long>(s.layout);
    b["paged"] = s.paged();
    b["page_size"] = s.page_size;
    b["num_pages"] = s.pool_pages();
    b["max_pages"] = s.max_pages();
    for (const char* t : {"q", "o"}) {
      b[fmt::format("stride_{}_b", t)] = q.b;
      b[fmt::format("stride_{}_h", t)] = q.h;
      b[fmt::format("stride_{}_n", t)] = q.n;
    }
    for (const char* t : {"k", "v"}) {
      b[fmt::format("stride_{}_b", t)] = k.b;
      b[fmt::format("stride_{}_h", t)] = k.h;
      b[fmt::format("stride_{}_n", t)] = k.n;
    }
    b["stride_page"] = s.paged() ? s.page_stride() : 0;
    const TensorStrides m = s.mask_strides();
    b["mask_f32"] = s.mask_f32;
    b["mask_bytes"] = static_cast<long long>(s.mask_bytes_per_element());
    b["mask_heads"] = m.h != 0 ? s.Hq : 1;
    b["mask_batches"] = m.b != 0 ? s.B : 1;
    b["stride_mask_b"] = m.b;
    b["stride_mask_h"] = m.h;
    b["stride_mask_n"] = m.n;
    b["alibi_mode"] = static_cast<long long>(s.alibi_mode);
    b["n_head_log2"] = s.params().n_head_log2;
    b["has_softcap"] = s.softcap > 0;
    return b;
  }

  NumberBindings number_variables(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    return {{"scale", s.scale}, {"max_bias", s.max_bias}, {"softcap", s.softcap}};
  }

  std::vector<std::string> buffer_names(const json& f) const override {
    std::vector<std::string> names = {"q", "k", "v", "mask", "sinks", "o"};
    if (AttentionShape::from_json(f).has_sequence_buffers())
      names.insert(names.end(), {"cu_seqlens_q", "cu_seqlens_k", "block_table"});
    return names;
  }

  std::string check_shape(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    for (auto [name, v] : {std::pair{"B", s.B}, {"Hq", s.Hq}, {"Hkv", s.Hkv}, {"Nq", s.Nq}, {"Nkv", s.Nkv}, {"D", s.D}})
      if (v < 1) return fmt::format("{} must be at least 1 (got {})", name, v);
    if (s.Hq % s.Hkv != 0) return fmt::format("Hq ({}) must be a multiple of Hkv ({})", s.Hq, s.Hkv);
    if (s.D % 4 != 0) return fmt::format("D ({}) must be a multiple of 4", s.D);
    if (s.window < 0) return "window must be >= 0";
    if (s.Nq > s.Nkv)
      return fmt::format("Nq ({}) must not exceed Nkv ({}): query rows are the last Nq positions", s.Nq, s.Nkv);
    if (s.max_bias < 0) return "max_bias must be >= 0";
    if (!(s.softcap >= 0) || !std::isfinite(s.softcap))
      return fmt::format("softcap must be >= 0 (0 = off; got {})", s.softcap);
    if (s.alibi_mode == AlibiMode::MaskScaled && !s.mask)
      return "alibi_mode mask_scaled needs mask 1: ALiBi is slope * mask[j], the mask holding the positions";
    if (s.layout != AttnLayout::THD && (!s.seqlens_q.empty() || !s.seqlens_k.empty()))
      return "seqlens_q and seqlens_k are for layout thd";
    if (!s.seqlens_k.empty() && s.seqlens_k.size() != s.seqlens_q.size())
      return fmt::format("seqlens_k lists {} lengths, seqlens_q {}: one each per sequence", s.seqlens_k.size(),
                         s.seqlens_q.size());
    for (std::size_t b = 0; b < s.seqlens_q.size(); ++b) {
      const int nq = s.seqlens_q[b], nk = s.seqlens_k.empty() ? nq + s.kv_offset() : s.seqlens_k[b];
      if (nq < 1 || nq > s.Nq) return fmt::format("seqlens_q[{}] = {} must be in [1, Nq = {}]", b, nq, s.Nq);
      if (nk < nq || nk > s.Nkv)
        return fmt::format("seqlens_k[{}] = {} must be in [seqlens_q[{}] = {}, Nkv = {}]", b, nk, b, nq, s.Nkv);
    }
    if (s.page_size < 0 || s.num_pages < 0) return "page_size and num_pages must be >= 0";
    if (s.num_pages > 0 && s.page_size == 0) return "num_pages needs page_size > 0";
    if (s.num_pages > 0 && s.num_pages < s.B * s.max_pages())
      return fmt::format("num_pages ({}) must hold B * ceil(Nkv / page_size) = {} pages", s.num_pages, s.B * s.max_pages());
    const double pool = s.paged() ? double(s.pool_pages()) * double(s.page_stride()) : 0;
    const double q = double(s.q_elements()), kv = s.paged() ? pool : double(s.kv_elements());
    if (std::max(q, kv) > double(std::numeric_limits<int>::max()))
      return "q or k/v holds more than 2^31 elements: the layout's strides are 32-bit int";
    return {};
  }

  std::string batch_field() const override { return "B"; }

  // A kernel's tuned row holds for one dtype, head size and masking, over a range of sequence lengths.
  ShapeBucketFields bucket_fields() const override { return {{"dtype", "D", "causal"}, {"Nq", "Nkv"}}; }

  json with_batch(const json& f, int n) const override {
    json out = f;
    out["B"] = n;
    // A pool given for the original batch may be too small for N sequences: the default pool fits.
    if (f.value("num_pages", 0) > 0 && AttentionShape::from_json(out).max_pages() * n > f.value("num_pages", 0))
      out["num_pages"] = 0;
    return out;
  }

  // Sequence B alone: the same streams and lengths (its index offsets them), its own pool.
  json sequence_shape(const json& f, int b) const override {
    json out = f;
    out["B"] = 1;
    out["sequence_offset"] = f.value("sequence_offset", 0) + b;
    if (f.value("num_pages", 0) > 0) out["num_pages"] = 0;
    return out;
  }

  Tolerance default_tolerance(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    if (s.dtype == AttnDtype::F32) return Tolerance{1e-5, 1e-4, 0};
    if (s.dtype == AttnDtype::F32_F16) return Tolerance{1e-4, 2e-3, 0};
    return Tolerance{1e-2, 2e-2, 0};
  }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    auto problem = std::make_unique<AttentionProblem>(AttentionShape::from_json(f), seed);
    if (f.contains("decode_step_of")) {  // a cache growth step: inputs cut from the at-once problem's
      const json& of = f.at("decode_step_of");
      const AttentionProblem at_once(AttentionShape::from_json(of.at("fields")), seed);
      problem->cut_from(at_once, of.at("step").get<int>());
    }
    return problem;
  }

  // At B = 1, the last T = min(steps, Nkv) positions computed in one causal
  // launch (Nq = T) and one step at a time (Nq = 1 over the cache up to the
  // position); layout and pool as the shape's, thd with those lengths listed.
  CacheGrowthPlan cache_growth(const json& f, int steps) const override {
    CacheGrowthPlan g;
    const AttentionShape base = AttentionShape::from_json(f);
    const int n = base.Nkv, t_all = std::min(steps, n);
    if (t_all < 2) {
      g.not_applicable = fmt::format("Nkv = {} leaves fewer than 2 positions to decode", n);
      return g;
    }
    auto lengths = [&](json fields, int nq, int nk) {
      fields["B"] = 1;
      fields["Nq"] = nq;
      fields["Nkv"] = nk;
      fields["causal"] = 1;
      if (base.layout == AttnLayout::THD) {
        fields["seqlens_q"] = json::array({nq});
        fields["seqlens_k"] = json::array({nk});
      }
      if (base.num_pages > 0) fields["num_pages"] = 0;
      return fields;
    };
    g.at_once = lengths(f, t_all, n);
    g.at_once_summary = {{"Nq", t_all}, {"Nkv", n}};
    g.positions = {n - t_all, n - 1};
    const AttentionLayout at_once(AttentionShape::from_json(g.at_once), 0);  // lengths listed: no seed needed
    for (int t = 0; t < t_all; ++t) {
      const int len = n - t_all + t + 1;
      CacheGrowthPlan::Step step;
      step.fields = lengths(f, 1, len);
      step.fields["decode_step_of"] = {{"fields", g.at_once}, {"step", t}};
      step.summary = {{"position", len - 1}, {"Nkv", len}};
      const AttentionShape ss = AttentionShape::from_json(step.fields);
      const AttentionLayout one(ss, 0);
      std::vector<std::size_t> elements(std::size_t(ss.Hq) * std::size_t(ss.D));
      for (int h = 0; h < ss.Hq; ++h)
        for (int d = 0; d < ss.D; ++d) elements[one.q_index(0, h, 0, d)] = at_once.q_index(0, h, t, d);
      step.at_once_elements = {std::move(elements)};
      g.steps.push_back(std::move(step));
    }
    return g;
  }
};

}  // namespace

const Operation& attention_operation() {
  static const AttentionOperation op;
  return op;
}

}  // namespace attn

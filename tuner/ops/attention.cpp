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
#include "tuner/core/rng.hpp"
#include "tuner/ops/attention_reference.hpp"
#include "tuner/core/parallel_for.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

// Writes N values drawn from [lo, hi) into a buffer of 4-byte floats or 2-byte f16/bf16 words.
void fill_random(std::vector<std::byte>& out, std::size_t offset_elems, std::size_t n, std::size_t elem_bytes,
                 AttnDtype dtype, UniformStream& rng, double lo, double hi) {
  for (std::size_t e = 0; e < n; ++e) {
    const float x = static_cast<float>(rng.next(lo, hi));
    std::byte* dst = out.data() + (offset_elems + e) * elem_bytes;
    if (elem_bytes == 4) {
      std::memcpy(dst, &x, 4);
    } else {
      const std::uint16_t w = dtype == AttnDtype::BF16 ? f32_to_bf16(x) : f32_to_f16(x);
      std::memcpy(dst, &w, 2);
    }
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

class AttentionProblem final : public Problem {
 public:
  AttentionProblem(const AttentionShape& shape, std::uint64_t seed) : s_(shape), seed_(seed) {
    const std::size_t qb = q_bytes_per_element(s_.dtype), kb = kv_bytes_per_element(s_.dtype);
    const AttnDtype kv_dtype = s_.dtype == AttnDtype::BF16 ? AttnDtype::BF16 : AttnDtype::F16;
    HostBuffer q{"q", false, std::vector<std::byte>(s_.q_elements() * qb), {}};
    HostBuffer k{"k", false, std::vector<std::byte>(s_.kv_elements() * kb), {}};
    HostBuffer v{"v", false, std::vector<std::byte>(s_.kv_elements() * kb), {}};
    // Disabled inputs still get a small valid buffer: every kernel takes every argument.
    HostBuffer mask{"mask", false, std::vector<std::byte>(std::max<std::size_t>(16, s_.mask_elements() * 2)), {}};
    HostBuffer sinks{"sinks", false, std::vector<std::byte>(std::max<std::size_t>(16, s_.sinks ? s_.Hq * 4 : 0)), {}};
    HostBuffer o{"o", true, std::vector<std::byte>(s_.q_elements() * qb), nan_element(qb, s_.dtype)};

    // Each sequence's data is its own stream: sequence b is the same inside any batch size.
    const std::size_t q_seq = std::size_t(s_.Hq) * s_.Nq * s_.D, kv_seq = std::size_t(s_.Hkv) * s_.Nkv * s_.D;
    // Sequences write disjoint ranges from their own streams: drawn in parallel.
    parallel_for(std::size_t(s_.B) * 4, [&](std::size_t task) {
      const int b = int(task / 4);
      switch (task % 4) {
        case 0: {
          UniformStream r(stream_seed(seed_, "q", b));
          fill_random(q.data, b * q_seq, q_seq, qb, s_.dtype, r, -1, 1);
          break;
        }
        case 1: {
          UniformStream r(stream_seed(seed_, "k", b));
          fill_random(k.data, b * kv_seq, kv_seq, kb, kv_dtype, r, -1, 1);
          break;
        }
        case 2: {
          UniformStream r(stream_seed(seed_, "v", b));
          fill_random(v.data, b * kv_seq, kv_seq, kb, kv_dtype, r, -1, 1);
          break;
        }
        default:
          if (s_.mask) fill_mask(mask.data, b);
      }
    });
    if (s_.sinks) {
      UniformStream rs(stream_seed(seed_, "sinks", 0));
      fill_random(sinks.data, 0, s_.Hq, 4, AttnDtype::F32_F16, rs, -2, 2);
    }
    buffers_ = {std::move(q), std::move(k), std::move(v), std::move(mask), std::move(sinks), std::move(o)};
  }

  std::vector<std::byte> params_bytes() const override {
    const attn_params p = s_.params();
    std::vector<std::byte> bytes(sizeof p);
    std::memcpy(bytes.data(), &p, sizeof p);
    return bytes;
  }

  void precompute_reference(const Tolerance& tol) const override { reference(checked_rows(tol)); }

  double flops() const override { return 4.0 * s_.B * s_.Hq * s_.attended_pairs() * s_.D; }

  double bytes() const override {
    double total = 0;
    for (const auto& b : buffers_)
      if (b.name != "mask" || s_.mask) total += double(b.data.size());
    return total;
  }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const std::vector<std::byte>& o = outputs.at(0);
    const std::size_t ob = q_bytes_per_element(s_.dtype);
    VerifyReport r;
    r.rows_total = static_cast<long long>(s_.B) * s_.Hq * s_.Nq;
    const std::size_t n = s_.q_elements();
    for (std::size_t e = 0; e < n; ++e) {
      if (std::isfinite(load_value(o, e, ob, s_.dtype))) continue;
      if (r.nonfinite++ == 0) r.worst = fmt::format("{} = {} (not written, or not finite)", element_name(e), load_value(o, e, ob, s_.dtype));
    }

    const auto& rows = checked_rows(tol);
    const auto& ref = reference(rows);
    double err2 = 0, ref2 = 0, worst_abs = -1;
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i) {
      const std::size_t base = rows[r_i] * s_.D;
      for (int d = 0; d < s_.D; ++d) {
        const double want = ref[r_i * s_.D + d];
        const double got = load_value(o, base + d, ob, s_.dtype);
        if (!std::isfinite(got)) continue;  // counted in nonfinite above
        const double diff = std::abs(got - want);
        err2 += diff * diff;
        ref2 += want * want;
        if (diff > worst_abs) {
          worst_abs = diff;
          if (r.nonfinite == 0)
            r.worst = fmt::format("{} = {:.7g}, expected {:.7g}", element_name(base + d), got, want);
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
  void fill_mask(std::vector<std::byte>& mask, int b) const {
    UniformStream rm(stream_seed(seed_, "mask", b));
    for (int i = 0; i < s_.Nq; ++i) {
      const int keep = std::clamp(s_.kv_offset() + i, 0, s_.Nkv - 1);  // never mask a row out entirely
      for (int j = 0; j < s_.Nkv; ++j) {
        const double u = rm.next(0, 1);
        const float x = (j != keep && u < 0.05) ? -std::numeric_limits<float>::infinity()
                                                : static_cast<float>(rm.next(-1, 0));
        const std::uint16_t w = f32_to_f16(x);
        std::memcpy(mask.data() + ((std::size_t(b) * s_.Nq + i) * s_.Nkv + j) * 2, &w, 2);
      }
    }
  }

  std::string element_name(std::size_t e) const {
    const int d = int(e % s_.D), i = int(e / s_.D % s_.Nq), h = int(e / s_.D / s_.Nq % s_.Hq);
    const int b = int(e / s_.D / s_.Nq / s_.Hq);
    return fmt::format("o[b={},h={},i={},d={}]", b, h, i, d);
  }

  // The rows verified: all of them when few, else the corners plus a fixed random sample.
  const std::vector<std::size_t>& checked_rows(const Tolerance& tol) const {
    std::lock_guard lock(mutex_);
    const std::size_t total = std::size_t(s_.B) * s_.Hq * s_.Nq;
    const std::size_t limit = tol.max_rows > 0 ? std::size_t(tol.max_rows) : 2048;
    if (!rows_.empty() && rows_limit_ == limit) return rows_;
    rows_limit_ = limit;
    rows_ = sample_rows(total, limit, seed_, {0, std::size_t(s_.Nq - 1), total - 1, total - std::size_t(s_.Nq)});
    reference_.clear();
    return rows_;
  }

  const std::vector<double>& reference(const std::vector<std::size_t>& rows) const {
    std::lock_guard lock(mutex_);
    if (!reference_.empty()) return reference_;
    AttentionValues in;
    const AttnDtype kv_dtype = s_.dtype == AttnDtype::BF16 ? AttnDtype::BF16 : AttnDtype::F16;
    auto widen = [](const HostBuffer& hb, std::size_t n, std::size_t eb, AttnDtype dt) {
      std::vector<float> out(n);
      for (std::size_t e = 0; e < n; ++e) out[e] = load_value(hb.data, e, eb, dt);
      return out;
    };
    in.q = widen(buffers_[0], s_.q_elements(), q_bytes_per_element(s_.dtype), s_.dtype);
    in.k = widen(buffers_[1], s_.kv_elements(), 2, kv_dtype);
    in.v = widen(buffers_[2], s_.kv_elements(), 2, kv_dtype);
    if (s_.mask) in.mask = widen(buffers_[3], s_.mask_elements(), 2, AttnDtype::F16);
    if (s_.sinks) in.sinks = widen(buffers_[4], s_.Hq, 4, AttnDtype::F32_F16);
    reference_.assign(rows.size() * s_.D, 0.0);
    parallel_for(rows.size(), [&](std::size_t r_i) {
      const std::size_t row = rows[r_i];
      const int i = int(row % s_.Nq), h = int(row / s_.Nq % s_.Hq), b = int(row / s_.Nq / s_.Hq);
      attention_reference_row(s_, in, b, h, i, reference_.data() + r_i * s_.D);
    });
    return reference_;
  }

  AttentionShape s_;
  std::uint64_t seed_;
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
        {"dtype", T::Choice, false, "f32_f16", {"f32_f16", "f16", "bf16"}, "element types: f32_f16 = Q/O float, K/V half"},
        {"B", T::Integer, true, nullptr, {}, "sequences in the batch"},
        {"Hq", T::Integer, true, nullptr, {}, "query heads"},
        {"Hkv", T::Integer, false, "Hq", {}, "key/value heads (GQA when fewer than Hq)"},
        {"Nq", T::Integer, true, nullptr, {}, "query rows per sequence (1 = decode)"},
        {"Nkv", T::Integer, false, "Nq", {}, "key/value rows per sequence"},
        {"D", T::Integer, true, nullptr, {}, "head dimension"},
        {"causal", T::Integer, false, 0, {}, "1: bottom-right aligned causal mask"},
        {"window", T::Integer, false, 0, {}, "sliding window half-width, 0 = off"},
        {"mask", T::Integer, false, 0, {}, "1: additive half mask [B][Nq][Nkv]"},
        {"sinks", T::Integer, false, 0, {}, "1: one sink logit per query head"},
        {"max_bias", T::Number, false, 0.0, {}, "ALiBi max bias, 0 = off"},
        {"scale", T::Number, false, nullptr, {}, "softmax scale (default 1/sqrt(D))"},
    };
  }

  std::vector<std::string> variable_names() const override {
    return {"B", "Hq", "Hkv", "Nq", "Nkv", "D", "causal", "window", "mask", "sinks", "alibi", "q_per_kv", "DTYPE"};
  }

  Bindings variables(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    return {{"B", s.B},           {"Hq", s.Hq},         {"Hkv", s.Hkv},       {"Nq", s.Nq},
            {"Nkv", s.Nkv},       {"D", s.D},           {"causal", s.causal}, {"window", s.window},
            {"mask", s.mask},     {"sinks", s.sinks},   {"alibi", s.max_bias > 0},
            {"q_per_kv", s.Hq / s.Hkv}, {"DTYPE", static_cast<long long>(s.dtype)}};
  }

  std::string check_shape(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    for (auto [name, v] : {std::pair{"B", s.B}, {"Hq", s.Hq}, {"Hkv", s.Hkv}, {"Nq", s.Nq}, {"Nkv", s.Nkv}, {"D", s.D}})
      if (v < 1) return fmt::format("{} must be at least 1 (got {})", name, v);
    if (s.Hq % s.Hkv != 0) return fmt::format("Hq ({}) must be a multiple of Hkv ({})", s.Hq, s.Hkv);
    if (s.D % 4 != 0) return fmt::format("D ({}) must be a multiple of 4", s.D);
    if (s.window < 0) return "window must be >= 0";
    if (s.Nq > s.Nkv) return fmt::format("Nq ({}) must not exceed Nkv ({}): query rows are the last Nq positions", s.Nq, s.Nkv);
    if (s.max_bias < 0) return "max_bias must be >= 0";
    return {};
  }

  std::string batch_field() const override { return "B"; }

  Tolerance default_tolerance(const json& f) const override {
    const AttentionShape s = AttentionShape::from_json(f);
    if (s.dtype == AttnDtype::F32_F16) return Tolerance{1e-4, 2e-3, 0};
    return Tolerance{1e-2, 2e-2, 0};
  }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<AttentionProblem>(AttentionShape::from_json(f), seed);
  }
};

}  // namespace

const Operation& attention_operation() {
  static const AttentionOperation op;
  return op;
}

}  // namespace attn

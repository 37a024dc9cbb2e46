#include "tuner/ops/deformable.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "tuner/core/parallel_for.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/ops/deformable_reference.hpp"
#include "tuner/ops/deformable_shape.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

constexpr long long kDefaultRows = 16384;  // queries: the standard shape (15200) is checked whole

HostBuffer input_buffer(const char* name, const std::vector<float>& values) {
  HostBuffer b{name, false, std::vector<std::byte>(values.size() * 4), {}};
  std::memcpy(b.data.data(), values.data(), values.size() * 4);
  return b;
}

float load_float(const std::vector<std::byte>& buf, std::size_t index) {
  float x;
  std::memcpy(&x, buf.data() + index * 4, 4);
  return x;
}

// Image b's inputs: value uniform in [-1, 1), locations uniform in [0, 1) (borders
// sample the zero padding), attention weights a softmax over each (query, head)'s
// levels x points of logits uniform in [-2, 2). Each image is its own stream.
DeformableValues random_inputs(const DeformableShape& s, std::uint64_t seed) {
  DeformableValues in;
  in.value.resize(s.value_elements());
  in.loc.resize(s.loc_elements());
  in.attn.resize(s.attn_elements());
  const std::size_t value_per_image = in.value.size() / s.B, loc_per_image = in.loc.size() / s.B;
  const std::size_t attn_per_image = in.attn.size() / s.B, group = std::size_t(s.levels) * s.points;
  std::vector<double> logits(group);
  for (int b = 0; b < s.B; ++b) {
    UniformStream rv(stream_seed(seed, "value", b)), rl(stream_seed(seed, "loc", b)), ra(stream_seed(seed, "attn", b));
    for (std::size_t e = 0; e < value_per_image; ++e) in.value[b * value_per_image + e] = float(rv.next(-1, 1));
    for (std::size_t e = 0; e < loc_per_image; ++e) in.loc[b * loc_per_image + e] = float(rl.next(0, 1));
    for (std::size_t g = 0; g < attn_per_image / group; ++g) {
      double total = 0;
      for (auto& x : logits) total += (x = std::exp(ra.next(-2, 2)));
      for (std::size_t i = 0; i < group; ++i) in.attn[b * attn_per_image + g * group + i] = float(logits[i] / total);
    }
  }
  return in;
}

class DeformableProblem final : public Problem {
 public:
  DeformableProblem(const DeformableShape& shape, std::uint64_t seed)
      : s_(shape), seed_(seed), in_(random_inputs(shape, seed)) {
    const std::uint32_t nan = 0x7fc00000u;
    HostBuffer out{"out", true, std::vector<std::byte>(s_.out_elements() * 4), std::vector<std::byte>(4)};
    std::memcpy(out.poison.data(), &nan, 4);
    buffers_ = {input_buffer("value", in_.value), input_buffer("loc", in_.loc), input_buffer("attn", in_.attn),
                std::move(out)};
  }

  // out is [B][Nq][heads][channels]: a sequence is one image's queries.
  std::vector<OutputDeclaration> outputs() const override {
    return {{"out",
             ElementType::F32,
             {{"b", std::size_t(s_.B)},
              {"q", std::size_t(s_.Nq)},
              {"h", std::size_t(s_.heads)},
              {"c", std::size_t(s_.channels)}},
             even_sequence_offsets(s_.out_elements(), s_.B)}};
  }

  std::vector<std::byte> params_bytes() const override {
    const deformable_params p = s_.params();
    std::vector<std::byte> bytes(sizeof p);
    std::memcpy(bytes.data(), &p, sizeof p);
    return bytes;
  }

  void precompute_reference(const Tolerance& tol) const override { reference(checked_rows(tol)); }

  // Per sampled point and channel: four corners, each weighted and added (the
  // attention weight folded into the corner weights).
  double flops() const override { return 8.0 * double(s_.samples()) * s_.channels; }
  double bytes() const override {
    return 4.0 * double(s_.value_elements() + s_.loc_elements() + s_.attn_elements() + s_.out_elements());
  }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const std::vector<std::byte>& out = outputs.at(0);
    const std::size_t row = std::size_t(s_.heads) * s_.channels;
    VerifyReport r;
    r.rows_total = static_cast<long long>(s_.B) * s_.Nq;
    for (std::size_t e = 0; e < s_.out_elements(); ++e) {
      const float x = load_float(out, e);
      if (std::isfinite(x)) continue;
      if (r.nonfinite++ == 0) r.worst = fmt::format("{} = {} (not written, or not finite)", element_name(e), x);
    }
    const auto& rows = checked_rows(tol);
    const auto& ref = reference(rows);
    double err2 = 0, ref2 = 0, worst_abs = -1;
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i) {
      for (std::size_t c = 0; c < row; ++c) {
        const double want = ref[r_i * row + c];
        const double got = load_float(out, rows[r_i] * row + c);
        if (!std::isfinite(got)) continue;  // counted in nonfinite above
        const double diff = std::abs(got - want);
        err2 += diff * diff;
        ref2 += want * want;
        if (diff > worst_abs) {
          worst_abs = diff;
          if (r.nonfinite == 0)
            r.worst = fmt::format("{} = {:.7g}, expected {:.7g}", element_name(rows[r_i] * row + c), got, want);
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
  std::string element_name(std::size_t e) const {
    const std::size_t C = s_.channels, H = s_.heads;
    return fmt::format("out[b={},q={},h={},c={}]", e / (H * C) / s_.Nq, e / (H * C) % s_.Nq, e / C % H, e % C);
  }

  // The (image, query) rows verified: all of them when few, else the corners plus a fixed random sample.
  const std::vector<std::size_t>& checked_rows(const Tolerance& tol) const {
    std::lock_guard lock(mutex_);
    const std::size_t total = std::size_t(s_.B) * s_.Nq;
    const std::size_t limit = std::size_t(tol.max_rows > 0 ? tol.max_rows : kDefaultRows);
    if (!rows_.empty() && rows_limit_ == limit) return rows_;
    rows_limit_ = limit;
    rows_ = sample_rows(total, limit, seed_, {0, std::size_t(s_.Nq - 1), total - 1, total - std::size_t(s_.Nq)});
    reference_.clear();
    return rows_;
  }

  const std::vector<double>& reference(const std::vector<std::size_t>& rows) const {
    std::lock_guard lock(mutex_);
    if (!reference_.empty()) return reference_;
    const std::size_t row = std::size_t(s_.heads) * s_.channels;
    reference_.assign(rows.size() * row, 0.0);
    parallel_for(rows.size(), [&](std::size_t r_i) {
      const int b = int(rows[r_i] / s_.Nq), q = int(rows[r_i] % s_.Nq);
      deformable_reference_query(s_, in_, b, q, reference_.data() + r_i * row);
    });
    return reference_;
  }

  DeformableShape s_;
  std::uint64_t seed_;
  DeformableValues in_;
  mutable std::mutex mutex_;
  mutable std::vector<std::size_t> rows_;
  mutable std::size_t rows_limit_ = 0;
  mutable std::vector<double> reference_;
};

class DeformableOperation final : public Operation {
 public:
  std::string name() const override { return "deformable_attention"; }

  std::vector<ShapeField> shape_fields() const override {
    using T = ShapeField::Type;
    std::vector<ShapeField> fields = {
        {"B", T::Integer, false, 1, {}, "images"},
        {"Nq", T::Integer, true, nullptr, {}, "queries per image"},
        {"heads", T::Integer, true, nullptr, {}, "attention heads"},
        {"channels", T::Integer, true, nullptr, {}, "value channels per head"},
        {"levels", T::Integer, true, nullptr, {}, fmt::format("feature levels, 1 to {}", DEFORMABLE_MAX_LEVELS)},
        {"points", T::Integer, true, nullptr, {}, "sampling points per query, head and level"},
    };
    for (int l = 0; l < DEFORMABLE_MAX_LEVELS; ++l) {
      fields.push_back(
          {level_field('H', l), T::Integer, false, 0, {}, fmt::format("height of level {} (0 past levels)", l)});
      fields.push_back({level_field('W', l), T::Integer, false, 0, {}, fmt::format("width of level {} (0 past levels)", l)});
    }
    return fields;
  }

  std::vector<std::string> variable_names() const override {
    return {"B", "Nq", "heads", "channels", "levels", "points", "S"};
  }

  Bindings variables(const json& f) const override {
    const DeformableShape s = DeformableShape::from_json(f);
    return {{"B", s.B},           {"Nq", s.Nq},         {"heads", s.heads},         {"channels", s.channels},
            {"levels", s.levels}, {"points", s.points}, {"S", s.values_per_image()}};
  }

  std::string check_shape(const json& f) const override { return DeformableShape::from_json(f).check(); }

  std::string batch_field() const override { return "B"; }

  // Kernels round each sampling coordinate to float (about 1e-5 of a pixel on
  // a 152-wide level), which moves a sample by up to that fraction of a
  // neighbour difference: errors of 1e-6 typical, 1e-5 at worst.
  Tolerance default_tolerance(const json&) const override { return Tolerance{1e-4, 1e-4, 0}; }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<DeformableProblem>(DeformableShape::from_json(f), seed);
  }
};

}  // namespace

const Operation& deformable_operation() {
  static const DeformableOperation op;
  return op;
}

}  // namespace attn

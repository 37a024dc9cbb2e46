#include "tuner/ops/deformable.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tuner/core/rng.hpp"
#include "tuner/ops/deformable_reference.hpp"
#include "tuner/ops/deformable_shape.hpp"
#include "tuner/ops/pod_bytes.hpp"
#include "tuner/ops/row_verification.hpp"
#include "tuner/ops/sampled_reference_problem.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

constexpr std::size_t kDefaultRows = 16384;  // queries: the standard shape (15200) is checked whole

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

class DeformableProblem final : public SampledReferenceProblem {
 public:
  DeformableProblem(const DeformableShape& shape, std::uint64_t seed)
      : SampledReferenceProblem(seed, kDefaultRows), s_(shape), in_(random_inputs(shape, seed)) {
    const auto names = buffer_names();
    buffers_ = {{names[0], false, float_bytes(in_.value), {}},
                {names[1], false, float_bytes(in_.loc), {}},
                {names[2], false, float_bytes(in_.attn), {}},
                {names[3], true, std::vector<std::byte>(s_.out_elements() * 4), float_nan_poison()}};
  }
  static std::vector<std::string> buffer_names() { return {"value", "loc", "attn", "out"}; }

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

  std::vector<std::byte> params_bytes() const override { return pod_bytes(s_.params()); }

  // Per sampled point and channel: four corners, each weighted and added (the
  // attention weight folded into the corner weights).
  double flops() const override { return 8.0 * double(s_.samples()) * s_.channels; }
  double bytes() const override {
    return 4.0 * double(s_.value_elements() + s_.loc_elements() + s_.attn_elements() + s_.out_elements());
  }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const auto& [rows, ref] = reference(tol);
    const std::size_t row = reference_row_length();
    const FloatRowLayout layout{std::size_t(s_.B) * s_.Nq, int(row),
                                [=](std::size_t r, int c) { return r * row + std::size_t(c); },
                                [this](std::size_t e) { return element_name(e); }, 7};
    return verify_float_rows(outputs.at(0), layout, rows, ref, tol);
  }

 private:
  std::string element_name(std::size_t e) const {
    const std::size_t C = s_.channels, H = s_.heads;
    return fmt::format("out[b={},q={},h={},c={}]", e / (H * C) / s_.Nq, e / (H * C) % s_.Nq, e / C % H, e % C);
  }

  // Logical row r = b * Nq + q: one (image, query)'s heads x channels outputs.
  std::size_t reference_rows() const override { return std::size_t(s_.B) * s_.Nq; }
  // The first and last queries of the first and last images.
  std::vector<std::size_t> always_checked_rows() const override {
    const std::size_t total = reference_rows();
    return {0, std::size_t(s_.Nq - 1), total - 1, total - std::size_t(s_.Nq)};
  }
  std::size_t reference_row_length() const override { return std::size_t(s_.heads) * s_.channels; }

  void reference_row(std::size_t row, double* out) const override {
    deformable_reference_query(s_, in_, int(row / s_.Nq), int(row % s_.Nq), out);
  }

  DeformableShape s_;
  DeformableValues in_;
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
  std::vector<std::string> buffer_names(const json&) const override { return DeformableProblem::buffer_names(); }
};

}  // namespace

const Operation& deformable_operation() {
  static const DeformableOperation op;
  return op;
}

}  // namespace attn

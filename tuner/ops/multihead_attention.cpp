#include "tuner/ops/multihead_attention.hpp"

#include <fmt/format.h>

#include "tuner/ops/float_qkv_problem.hpp"
#include "tuner/ops/multihead_examples.hpp"
#include "tuner/ops/multihead_reference.hpp"
#include "tuner/ops/pod_bytes.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

class MultiheadProblem final : public FloatQkvProblem {
 public:
  MultiheadProblem(const MultiheadShape& shape, std::uint64_t seed)
      : FloatQkvProblem(example_or_random(find_multihead_example(shape.inputs), shape.elements(), seed), seed), s_(shape) {}

  std::vector<OutputDeclaration> outputs() const override {
    return {{"o", ElementType::F32, {{"i", std::size_t(s_.N)}, {"c", std::size_t(s_.d_model)}}, {}}};
  }

  std::vector<std::byte> params_bytes() const override { return pod_bytes(s_.params()); }

  // FlashAttention's convention: 4 FLOPs per attended (row, key) pair and head dimension.
  double flops() const override { return 4.0 * s_.h * s_.attended_pairs() * s_.d_k(); }
  double bytes() const override { return 4.0 * double(s_.elements()) * sizeof(float); }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const auto& [rows, ref] = reference(tol);
    return verify_float_rows(outputs.at(0), layout(), rows, ref, tol);
  }

 private:
  // Logical row r = head * N + i: d_k values of one head's output row.
  FloatRowLayout layout() const {
    const int N = s_.N, d_model = s_.d_model, d_k = s_.d_k();
    return {std::size_t(s_.h) * N, d_k, [=](std::size_t r, int c) { return (r % N) * d_model + (r / N) * d_k + c; },
            [=](std::size_t e) { return fmt::format("o[i={},head={},c={}]", e / d_model, e % d_model / d_k, e % d_k); }};
  }

  std::size_t reference_rows() const override { return std::size_t(s_.h) * s_.N; }
  // The first head's first and last rows, and the last head's.
  std::vector<std::size_t> always_checked_rows() const override {
    const std::size_t total = reference_rows();
    return {0, std::size_t(s_.N) - 1, total - s_.N, total - 1};
  }
  std::size_t reference_row_length() const override { return std::size_t(s_.d_k()); }

  void reference_row(std::size_t row, double* out) const override {
    multihead_reference_row(s_, q_.data(), k_.data(), v_.data(), int(row / s_.N), int(row % s_.N), out);
  }

  MultiheadShape s_;
};

class MultiheadOperation final : public Operation {
 public:
  std::string name() const override { return "multihead_attention"; }

  std::vector<ShapeField> shape_fields() const override {
    using T = ShapeField::Type;
    std::vector<std::string> inputs = {"random"};
    for (const auto& e : multihead_examples()) inputs.push_back(e.name);
    return {
        {"N", T::Integer, true, nullptr, {}, "rows (tokens) of Q, K, V and O"},
        {"d_model", T::Integer, true, nullptr, {}, "row length: h heads of d_model / h columns"},
        {"h", T::Integer, false, 1, {}, "heads"},
        {"window", T::Integer, false, 0, {}, "sliding window: row i attends to |i - j| <= window (0 = off)"},
        {"scale", T::Number, false, nullptr, {}, "softmax scale (default 1/sqrt(d_model / h))"},
        {"inputs", T::Choice, false, "random", inputs, "random, or a fixed worked example with known outputs"},
    };
  }

  std::vector<std::string> variable_names() const override { return {"N", "d_model", "h", "d_k", "window"}; }

  Bindings variables(const json& f) const override {
    const MultiheadShape s = MultiheadShape::from_json(f);
    return {{"N", s.N}, {"d_model", s.d_model}, {"h", s.h}, {"d_k", s.d_k()}, {"window", s.window}};
  }

  std::string check_shape(const json& f) const override {
    const MultiheadShape s = MultiheadShape::from_json(f);
    for (auto [name, v] : {std::pair{"N", s.N}, {"d_model", s.d_model}, {"h", s.h}})
      if (v < 1) return fmt::format("{} must be at least 1 (got {})", name, v);
    if (s.d_model % s.h != 0) return fmt::format("d_model ({}) must be a multiple of h ({})", s.d_model, s.h);
    if (s.window < 0) return "window must be >= 0";
    if (s.scale <= 0) return "scale must be > 0";
    if (const MultiheadExample* ex = find_multihead_example(s.inputs)) {
      if (s.N != ex->N || s.d_model != ex->d_model || s.h != ex->h || s.window != ex->window)
        return fmt::format("inputs '{}' is the example with N = {}, d_model = {}, h = {}, window = {}", ex->name, ex->N,
                           ex->d_model, ex->h, ex->window);
    }
    return {};
  }

  Tolerance default_tolerance(const json&) const override { return Tolerance{2e-5, 2e-4, 0}; }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<MultiheadProblem>(MultiheadShape::from_json(f), seed);
  }
  std::vector<std::string> buffer_names(const json&) const override { return FloatQkvProblem::buffer_names(); }
};

}  // namespace

const Operation& multihead_attention_operation() {
  static const MultiheadOperation op;
  return op;
}

}  // namespace attn

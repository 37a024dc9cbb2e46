#include "tuner/ops/linear_attention.hpp"

#include <optional>

#include <fmt/format.h>

#include "tuner/ops/float_qkv_problem.hpp"
#include "tuner/ops/linear_attention_examples.hpp"
#include "tuner/ops/linear_attention_reference.hpp"
#include "tuner/ops/pod_bytes.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

class LinearAttentionProblem final : public FloatQkvProblem {
 public:
  LinearAttentionProblem(const LinearAttentionShape& shape, std::uint64_t seed)
      : FloatQkvProblem(example_or_random(find_linear_attention_example(shape.inputs), shape.elements(), seed), seed),
        s_(shape) {}

  std::vector<OutputDeclaration> outputs() const override {
    return {{"o", ElementType::F32, {{"i", std::size_t(s_.M)}, {"c", std::size_t(s_.d)}}, {}}};
  }

  std::vector<std::byte> params_bytes() const override { return pod_bytes(s_.params()); }

  // The two d x d products (phi(K)^T V and phi(Q) S), 2 FLOPs per multiply-add.
  double flops() const override { return 4.0 * s_.M * double(s_.d) * s_.d; }
  double bytes() const override { return 4.0 * double(s_.elements()) * sizeof(float); }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const auto& [rows, ref] = reference(tol);
    const int d = s_.d;
    const FloatRowLayout layout{std::size_t(s_.M), d, [=](std::size_t r, int c) { return r * d + c; },
                                [=](std::size_t e) { return fmt::format("o[i={},c={}]", e / d, e % d); }};
    return verify_float_rows(outputs.at(0), layout, rows, ref, tol);
  }

 private:
  std::size_t reference_rows() const override { return std::size_t(s_.M); }
  std::vector<std::size_t> always_checked_rows() const override { return {0, std::size_t(s_.M) - 1}; }
  std::size_t reference_row_length() const override { return std::size_t(s_.d); }

  // The state sums over every row: computed once, whatever the sample.
  void prepare_reference() const override {
    if (!state_) state_ = linear_attention_state(s_, k_.data(), v_.data());
  }

  void reference_row(std::size_t row, double* out) const override {
    linear_attention_reference_row(*state_, q_.data(), int(row), out);
  }

  LinearAttentionShape s_;
  mutable std::optional<LinearAttentionState> state_;
};

class LinearAttentionOperation final : public Operation {
 public:
  std::string name() const override { return "linear_attention"; }

  std::vector<ShapeField> shape_fields() const override {
    using T = ShapeField::Type;
    std::vector<std::string> inputs = {"random"};
    for (const auto& e : linear_attention_examples()) inputs.push_back(e.name);
    return {
        {"M", T::Integer, true, nullptr, {}, "rows (tokens) of Q, K, V and O"},
        {"d", T::Integer, true, nullptr, {}, "feature dimension"},
        {"inputs", T::Choice, false, "random", inputs, "random, or the fixed worked example with known outputs"},
    };
  }

  std::vector<std::string> variable_names() const override { return {"M", "d"}; }

  Bindings variables(const json& f) const override {
    const LinearAttentionShape s = LinearAttentionShape::from_json(f);
    return {{"M", s.M}, {"d", s.d}};
  }

  std::string check_shape(const json& f) const override {
    const LinearAttentionShape s = LinearAttentionShape::from_json(f);
    if (s.M < 1) return fmt::format("M must be at least 1 (got {})", s.M);
    if (s.d < 1) return fmt::format("d must be at least 1 (got {})", s.d);
    if (const LinearAttentionExample* ex = find_linear_attention_example(s.inputs)) {
      if (s.M != ex->M || s.d != ex->d)
        return fmt::format("inputs '{}' is the example with M = {}, d = {}", ex->name, ex->M, ex->d);
    }
    return {};
  }

  // fp32 sums over all M rows for the state: looser than one softmax row.
  Tolerance default_tolerance(const json&) const override { return Tolerance{1e-4, 1e-3, 0}; }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<LinearAttentionProblem>(LinearAttentionShape::from_json(f), seed);
  }
  std::vector<std::string> buffer_names(const json&) const override { return FloatQkvProblem::buffer_names(); }
};

}  // namespace

const Operation& linear_attention_operation() {
  static const LinearAttentionOperation op;
  return op;
}

}  // namespace attn

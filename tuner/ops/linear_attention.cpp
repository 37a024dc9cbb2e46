#include "tuner/ops/linear_attention.hpp"

#include <cstring>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "tuner/core/parallel_for.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/ops/linear_attention_examples.hpp"
#include "tuner/ops/linear_attention_reference.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, const char* label) {
  UniformStream rng(stream_seed(seed, label, 0));
  std::vector<float> x(n);
  for (auto& e : x) e = static_cast<float>(rng.next(-1, 1));
  return x;
}

class LinearAttentionProblem final : public Problem {
 public:
  LinearAttentionProblem(const LinearAttentionShape& shape, std::uint64_t seed) : s_(shape), seed_(seed) {
    if (const LinearAttentionExample* ex = find_linear_attention_example(s_.inputs)) {
      q_ = ex->q, k_ = ex->k, v_ = ex->v;
    } else {
      q_ = random_floats(s_.elements(), seed, "q");
      k_ = random_floats(s_.elements(), seed, "k");
      v_ = random_floats(s_.elements(), seed, "v");
    }
    buffers_ = {{"q", false, float_bytes(q_), {}},
                {"k", false, float_bytes(k_), {}},
                {"v", false, float_bytes(v_), {}},
                {"o", true, std::vector<std::byte>(s_.elements() * sizeof(float)), float_nan_poison()}};
  }

  std::vector<OutputDeclaration> outputs() const override {
    return {{"o", ElementType::F32, {{"i", std::size_t(s_.M)}, {"c", std::size_t(s_.d)}}, {}}};
  }

  std::vector<std::byte> params_bytes() const override {
    const linear_attention_params p = s_.params();
    std::vector<std::byte> bytes(sizeof p);
    std::memcpy(bytes.data(), &p, sizeof p);
    return bytes;
  }

  void precompute_reference(const Tolerance& tol) const override { reference(tol); }

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
  struct Reference {
    std::vector<std::size_t> rows;
    std::vector<double> values;
  };

  const Reference& reference(const Tolerance& tol) const {
    std::lock_guard lock(mutex_);
    const std::size_t limit = tol.max_rows > 0 ? std::size_t(tol.max_rows) : 2048;
    if (ref_limit_ == limit) return ref_;
    if (!state_) state_ = linear_attention_state(s_, k_.data(), v_.data());
    ref_.rows = sample_rows(std::size_t(s_.M), limit, seed_, {0, std::size_t(s_.M) - 1});
    ref_.values.assign(ref_.rows.size() * s_.d, 0.0);
    parallel_for(ref_.rows.size(), [&](std::size_t r) {
      linear_attention_reference_row(*state_, q_.data(), int(ref_.rows[r]), ref_.values.data() + r * s_.d);
    });
    ref_limit_ = limit;
    return ref_;
  }

  LinearAttentionShape s_;
  std::uint64_t seed_;
  std::vector<float> q_, k_, v_;
  mutable std::mutex mutex_;
  mutable std::optional<LinearAttentionState> state_;
  mutable std::size_t ref_limit_ = 0;
  mutable Reference ref_;
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
        {"inputs", T::Choice, false, "random", inputs, "random, or the fixed worked example of seed 002"},
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
};

}  // namespace

const Operation& linear_attention_operation() {
  static const LinearAttentionOperation op;
  return op;
}

}  // namespace attn

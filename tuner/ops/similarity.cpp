#include "tuner/ops/similarity.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "tuner/core/rng.hpp"
#include "tuner/ops/pod_bytes.hpp"
#include "tuner/ops/row_verification.hpp"
#include "tuner/ops/sampled_reference_problem.hpp"
#include "tuner/ops/similarity_reference.hpp"
#include "tuner/ops/similarity_shape.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

constexpr std::size_t kDefaultRows = 256;  // each row holds M outputs: 256 rows of 8192 keys = 2M checked values

HostBuffer input_buffer(const std::string& name, const std::vector<float>& values) {
  HostBuffer b{name, false, std::vector<std::byte>(std::max<std::size_t>(16, values.size() * 4)), {}};
  std::memcpy(b.data.data(), values.data(), values.size() * 4);
  return b;
}

class SimilarityProblem final : public SampledReferenceProblem {
 public:
  SimilarityProblem(const SimilarityShape& shape, std::uint64_t seed)
      : SampledReferenceProblem(seed, kDefaultRows), s_(shape) {
    const std::size_t P = s_.proj_dim();
    // Weights with variance 1/D keep projected features, and so outputs, of order one.
    const double w = std::sqrt(3.0 / s_.D);
    q_ = uniform_floats(std::size_t(s_.N) * s_.D, seed, "q", -1, 1);
    k_ = uniform_floats(std::size_t(s_.M) * s_.D, seed, "k", -1, 1);
    wq_ = uniform_floats(P * s_.D, seed, "wq", -w, w);
    wk_ = uniform_floats(P * s_.D, seed, "wk", -w, w);
    std::vector<float> pk;
    if (s_.keys_ahead) {  // what a database would have stored: the exact projection, rounded once
      const auto& exact = projected_keys();
      pk.assign(exact.begin(), exact.end());
    }
    const auto names = buffer_names();
    buffers_ = {input_buffer(names[0], q_),  input_buffer(names[1], k_),
                input_buffer(names[2], wq_), input_buffer(names[3], wk_),
                input_buffer(names[4], pk),  {names[5], true, std::vector<std::byte>(s_.pairs() * 4), float_nan_poison()}};
  }
  static std::vector<std::string> buffer_names() { return {"q", "k", "wq", "wk", "pk", "out"}; }

  std::vector<OutputDeclaration> outputs() const override {
    return {{"out", ElementType::F32, {{"q", std::size_t(s_.N)}, {"k", std::size_t(s_.M)}}, {}}};
  }

  std::vector<std::byte> params_bytes() const override { return pod_bytes(s_.params()); }

  // The mathematics done once: both projections (the key one only when the
  // kernels compute it) and the product of the projections.
  double flops() const override {
    const double P = s_.proj_dim();
    return 2.0 * s_.N * s_.D * P + (s_.keys_ahead ? 0.0 : 2.0 * s_.M * s_.D * P) + 2.0 * s_.N * double(s_.M) * P;
  }

  // The inputs the mathematics needs (pk replaces k and wk when the keys come projected), and the output.
  double bytes() const override {
    const double P = s_.proj_dim();
    const double keys = s_.keys_ahead ? double(s_.M) * P : double(s_.M) * s_.D + P * s_.D;
    return 4.0 * (double(s_.N) * s_.D + P * s_.D + keys + double(s_.pairs()));
  }

  std::string work_unit() const override { return "pairs"; }
  double work_items() const override { return double(s_.pairs()); }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    const auto& [rows, ref] = reference(tol);
    const std::size_t M = std::size_t(s_.M);
    const FloatRowLayout layout{std::size_t(s_.N), s_.M, [=](std::size_t r, int j) { return r * M + std::size_t(j); },
                                [=](std::size_t e) { return fmt::format("out[i={},j={}]", e / M, e % M); }, 7};
    return verify_float_rows(outputs.at(0), layout, rows, ref, tol);
  }

 private:
  // Logical row i: query i's scores against all M keys.
  std::size_t reference_rows() const override { return std::size_t(s_.N); }
  std::vector<std::size_t> always_checked_rows() const override { return {0, std::size_t(s_.N) - 1}; }
  std::size_t reference_row_length() const override { return std::size_t(s_.M); }

  void reference_row(std::size_t row, double* out) const override {
    const std::vector<double> pq = project_rows(q_.data() + row * s_.D, 1, wq_.data(), s_.D, s_.proj_dim());
    similarity_reference_row(s_, pq.data(), projected_keys(), out);
  }

  // Every key projected, in double: shared by the reference rows and the keys_ahead input.
  const std::vector<double>& projected_keys() const {
    std::lock_guard lock(pk_mutex_);
    if (pk_.empty()) pk_ = project_rows(k_.data(), s_.M, wk_.data(), s_.D, s_.proj_dim());
    return pk_;
  }

  SimilarityShape s_;
  std::vector<float> q_, k_, wq_, wk_;
  mutable std::mutex pk_mutex_;
  mutable std::vector<double> pk_;
};

class SimilarityOperation final : public Operation {
 public:
  std::string name() const override { return "similarity"; }

  std::vector<ShapeField> shape_fields() const override {
    using T = ShapeField::Type;
    return {
        {"N", T::Integer, true, nullptr, {}, "queries"},
        {"M", T::Integer, false, "N", {}, "keys"},
        {"D", T::Integer, true, nullptr, {}, "input dimension of queries and keys"},
        {"heads", T::Integer, true, nullptr, {}, "projection heads"},
        {"head_dim", T::Integer, true, nullptr, {}, "features per head"},
        {"temperature", T::Number, false, 1.0, {}, "the mean over heads is divided by it"},
        {"keys_ahead",
         T::Integer,
         false,
         0,
         {},
         "1: the keys come projected (input pk, as a search database stores them); only kernels reading pk run"},
    };
  }

  std::vector<std::string> variable_names() const override {
    return {"N", "M", "D", "heads", "head_dim", "proj_dim", "keys_ahead"};
  }

  Bindings variables(const json& f) const override {
    const SimilarityShape s = SimilarityShape::from_json(f);
    return {{"N", s.N},
            {"M", s.M},
            {"D", s.D},
            {"heads", s.heads},
            {"head_dim", s.head_dim},
            {"proj_dim", s.proj_dim()},
            {"keys_ahead", s.keys_ahead}};
  }

  std::string check_shape(const json& f) const override {
    const SimilarityShape s = SimilarityShape::from_json(f);
    for (auto [name, v] : {std::pair{"N", s.N}, {"M", s.M}, {"D", s.D}, {"heads", s.heads}, {"head_dim", s.head_dim}})
      if (v < 1) return fmt::format("{} must be at least 1 (got {})", name, v);
    // Kernels read rows as 16-byte vectors.
    if (s.D % 4 != 0) return fmt::format("D ({}) must be a multiple of 4", s.D);
    if (s.head_dim % 4 != 0) return fmt::format("head_dim ({}) must be a multiple of 4", s.head_dim);
    if (!(s.temperature > 0)) return "temperature must be > 0";
    const int ka = f.at("keys_ahead").get<int>();
    if (ka != 0 && ka != 1) return fmt::format("keys_ahead must be 0 or 1 (got {})", ka);
    // Kernels index inputs with 32-bit integers; outputs and per-head partials with 64-bit ones.
    const long long big = std::max({(long long)s.N, (long long)s.M, (long long)s.proj_dim()}) *
                          std::max((long long)s.D, (long long)s.proj_dim());
    if (big >= (1ll << 31)) return "inputs and projections must have fewer than 2^31 elements";
    return {};
  }

  // fp32 sums of D products, then of proj_dim products: the error grows like
  // sqrt(D + proj_dim) roundings; 8x headroom on rel_l2, and the largest error
  // of millions of elements is a few of their standard deviations.
  Tolerance default_tolerance(const json& f) const override {
    const SimilarityShape s = SimilarityShape::from_json(f);
    const double rel = 8.0 * std::ldexp(1.0, -24) * std::sqrt(double(s.D + s.proj_dim()));
    return Tolerance{rel, 8.0 * rel * s.output_spread(), 0};
  }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<SimilarityProblem>(SimilarityShape::from_json(f), seed);
  }
  std::vector<std::string> buffer_names(const json&) const override { return SimilarityProblem::buffer_names(); }
};

}  // namespace

const Operation& similarity_operation() {
  static const SimilarityOperation op;
  return op;
}

}  // namespace attn

#include "tuner/ops/similarity.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "tuner/core/parallel_for.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/ops/row_verification.hpp"
#include "tuner/ops/similarity_reference.hpp"
#include "tuner/ops/similarity_shape.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

constexpr long long kDefaultRows = 256;  // each row holds M outputs: 256 rows of 8192 keys = 2M checked values

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, const char* stream, double lo, double hi) {
  UniformStream rng(stream_seed(seed, stream, 0));
  std::vector<float> out(n);
  for (auto& x : out) x = static_cast<float>(rng.next(lo, hi));
  return out;
}

HostBuffer input_buffer(const char* name, const std::vector<float>& values) {
  HostBuffer b{name, false, std::vector<std::byte>(std::max<std::size_t>(16, values.size() * 4)), {}};
  std::memcpy(b.data.data(), values.data(), values.size() * 4);
  return b;
}

float load_float(const std::vector<std::byte>& buf, std::size_t index) {
  float x;
  std::memcpy(&x, buf.data() + index * 4, 4);
  return x;
}

class SimilarityProblem final : public Problem {
 public:
  SimilarityProblem(const SimilarityShape& shape, std::uint64_t seed) : s_(shape), seed_(seed) {
    const std::size_t P = s_.proj_dim();
    // Weights with variance 1/D keep projected features, and so outputs, of order one.
    const double w = std::sqrt(3.0 / s_.D);
    q_ = random_floats(std::size_t(s_.N) * s_.D, seed_, "q", -1, 1);
    k_ = random_floats(std::size_t(s_.M) * s_.D, seed_, "k", -1, 1);
    wq_ = random_floats(P * s_.D, seed_, "wq", -w, w);
    wk_ = random_floats(P * s_.D, seed_, "wk", -w, w);
    std::vector<float> pk;
    if (s_.keys_ahead) {  // what a database would have stored: the exact projection, rounded once
      const auto& exact = projected_keys();
      pk.assign(exact.begin(), exact.end());
    }
    const std::uint32_t nan = 0x7fc00000u;
    HostBuffer out{"out", true, std::vector<std::byte>(s_.pairs() * 4), std::vector<std::byte>(4)};
    std::memcpy(out.poison.data(), &nan, 4);
    buffers_ = {input_buffer("q", q_),   input_buffer("k", k_),  input_buffer("wq", wq_),
                input_buffer("wk", wk_), input_buffer("pk", pk), std::move(out)};
  }

  std::vector<OutputDeclaration> outputs() const override {
    return {{"out", ElementType::F32, {{"q", std::size_t(s_.N)}, {"k", std::size_t(s_.M)}}, {}}};
  }

  std::vector<std::byte> params_bytes() const override {
    const similarity_params p = s_.params();
    std::vector<std::byte> bytes(sizeof p);
    std::memcpy(bytes.data(), &p, sizeof p);
    return bytes;
  }

  void precompute_reference(const Tolerance& tol) const override { reference(checked_rows(tol)); }

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
    const std::vector<std::byte>& out = outputs.at(0);
    VerifyReport r;
    r.rows_total = s_.N;
    for (std::size_t e = 0; e < s_.pairs(); ++e) {
      const float x = load_float(out, e);
      if (std::isfinite(x)) continue;
      if (r.nonfinite++ == 0) r.worst = fmt::format("{} = {} (not written, or not finite)", element_name(e), x);
    }
    const auto& rows = checked_rows(tol);
    const auto& ref = reference(rows);
    double err2 = 0, ref2 = 0, worst_abs = -1;
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i) {
      const std::size_t base = rows[r_i] * s_.M;
      for (int j = 0; j < s_.M; ++j) {
        const double want = ref[r_i * s_.M + j];
        const double got = load_float(out, base + j);
        if (!std::isfinite(got)) continue;  // counted in nonfinite above
        const double diff = std::abs(got - want);
        err2 += diff * diff;
        ref2 += want * want;
        if (diff > worst_abs) {
          worst_abs = diff;
          if (r.nonfinite == 0) r.worst = fmt::format("{} = {:.7g}, expected {:.7g}", element_name(base + j), got, want);
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
  std::string element_name(std::size_t e) const { return fmt::format("out[i={},j={}]", e / s_.M, e % s_.M); }

  // The query rows verified: all of them when few, else the first and last plus a fixed random sample.
  const std::vector<std::size_t>& checked_rows(const Tolerance& tol) const {
    std::lock_guard lock(mutex_);
    const std::size_t total = s_.N;
    const std::size_t limit = std::size_t(tol.max_rows > 0 ? tol.max_rows : kDefaultRows);
    if (!rows_.empty() && rows_limit_ == limit) return rows_;
    rows_limit_ = limit;
    rows_ = sample_rows(total, limit, seed_, {0, total - 1});
    reference_.clear();
    return rows_;
  }

  // Every key projected, in double: shared by the reference rows and the keys_ahead input.
  const std::vector<double>& projected_keys() const {
    std::lock_guard lock(pk_mutex_);
    if (pk_.empty()) pk_ = project_rows(k_.data(), s_.M, wk_.data(), s_.D, s_.proj_dim());
    return pk_;
  }

  const std::vector<double>& reference(const std::vector<std::size_t>& rows) const {
    const auto& pk = projected_keys();
    std::lock_guard lock(mutex_);
    if (!reference_.empty()) return reference_;
    const std::size_t P = s_.proj_dim();
    std::vector<float> q_rows(rows.size() * s_.D);
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i)
      std::copy_n(q_.begin() + rows[r_i] * s_.D, s_.D, q_rows.begin() + r_i * s_.D);
    const std::vector<double> pq = project_rows(q_rows.data(), rows.size(), wq_.data(), s_.D, s_.proj_dim());
    reference_.assign(rows.size() * s_.M, 0.0);
    parallel_for(rows.size(), [&](std::size_t r_i) {
      similarity_reference_row(s_, pq.data() + r_i * P, pk, reference_.data() + r_i * s_.M);
    });
    return reference_;
  }

  SimilarityShape s_;
  std::uint64_t seed_;
  std::vector<float> q_, k_, wq_, wk_;
  mutable std::mutex mutex_, pk_mutex_;
  mutable std::vector<double> pk_;
  mutable std::vector<std::size_t> rows_;
  mutable std::size_t rows_limit_ = 0;
  mutable std::vector<double> reference_;
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
};

}  // namespace

const Operation& similarity_operation() {
  static const SimilarityOperation op;
  return op;
}

}  // namespace attn

#include "tuner/ops/cpu_references.hpp"

#include <cmath>

#include "tuner/ops/attention_reference.hpp"

namespace attn {
namespace {

int field(const Bindings& f, const char* name) { return static_cast<int>(f.at(name)); }

// o = softmax(q k^T / sqrt(D)) v per (batch, head), no mask: the attention
// operation's own reference row (tuner/ops/attention_reference) over [B][H][N][D] arrays.
std::vector<std::vector<double>> attention(const Bindings& f, const std::vector<std::vector<double>>& in) {
  AttentionShape shape;
  shape.B = field(f, "B");
  shape.Hq = shape.Hkv = field(f, "H");
  shape.Nq = shape.Nkv = field(f, "N");
  shape.D = field(f, "D");
  shape.scale = 1.0 / std::sqrt(static_cast<double>(shape.D));
  AttentionValues values;
  values.q.assign(in[0].begin(), in[0].end());
  values.k.assign(in[1].begin(), in[1].end());
  values.v.assign(in[2].begin(), in[2].end());
  std::vector<double> o(shape.q_elements());
  for (int b = 0; b < shape.B; ++b)
    for (int h = 0; h < shape.Hq; ++h)
      for (int i = 0; i < shape.Nq; ++i)
        attention_reference_row(shape, values, b, h, i,
                                o.data() + ((std::size_t(b) * shape.Hq + h) * shape.Nq + i) * shape.D);
  return {std::move(o)};
}

// c[M][N] = a[M][K] b[K][N], row-major.
std::vector<std::vector<double>> matmul(const Bindings& f, const std::vector<std::vector<double>>& in) {
  const long long M = f.at("M"), N = f.at("N"), K = f.at("K");
  std::vector<double> c(static_cast<std::size_t>(M * N), 0.0);
  for (long long i = 0; i < M; ++i)
    for (long long k = 0; k < K; ++k) {
      const double a = in[0][static_cast<std::size_t>(i * K + k)];
      for (long long j = 0; j < N; ++j)
        c[static_cast<std::size_t>(i * N + j)] += a * in[1][static_cast<std::size_t>(k * N + j)];
    }
  return {std::move(c)};
}

const std::vector<CpuReference>& registry() {
  static const std::vector<CpuReference> all = {
      {"attention",
       "o = softmax(q k^T / sqrt(D)) v, q k v o [B][H][N][D], no mask",
       {"B", "H", "N", "D"},
       {"q", "k", "v"},
       {"o"},
       [](const Bindings& f) {
         const long long n = f.at("B") * f.at("H") * f.at("N") * f.at("D");
         return std::map<std::string, long long>{{"q", n}, {"k", n}, {"v", n}, {"o", n}};
       },
       attention},
      {"matmul",
       "c[M][N] = a[M][K] b[K][N], row-major",
       {"M", "N", "K"},
       {"a", "b"},
       {"c"},
       [](const Bindings& f) {
         return std::map<std::string, long long>{{"a", f.at("M") * f.at("K")},
                                                 {"b", f.at("K") * f.at("N")},
                                                 {"c", f.at("M") * f.at("N")}};
       },
       matmul},
  };
  return all;
}

}  // namespace

const CpuReference* find_cpu_reference(std::string_view name) {
  for (const auto& r : registry())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> cpu_reference_names() {
  std::vector<std::string> names;
  for (const auto& r : registry()) names.push_back(r.name);
  return names;
}

}  // namespace attn

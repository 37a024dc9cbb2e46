#include "tuner/ops/similarity_reference.hpp"

#include "tuner/core/parallel_for.hpp"

namespace attn {

std::vector<double> project_rows(const float* x, std::size_t rows, const float* w, int D, int proj_dim) {
  std::vector<double> out(rows * proj_dim);
  parallel_for(rows, [&](std::size_t r) {
    const float* xr = x + r * D;
    for (int f = 0; f < proj_dim; ++f) {
      const float* wf = w + std::size_t(f) * D;
      double dot = 0;
      for (int d = 0; d < D; ++d) dot += double(xr[d]) * double(wf[d]);
      out[r * proj_dim + f] = dot;
    }
  });
  return out;
}

void similarity_reference_row(const SimilarityShape& s, const double* pq_row, const std::vector<double>& pk, double* out) {
  const int P = s.proj_dim();
  for (int j = 0; j < s.M; ++j) {
    const double* pk_row = pk.data() + std::size_t(j) * P;
    double dot = 0;
    for (int f = 0; f < P; ++f) dot += pq_row[f] * pk_row[f];
    out[j] = s.scale() * dot;
  }
}

std::vector<double> similarity_reference(const SimilarityShape& s, const std::vector<float>& q, const std::vector<float>& k,
                                         const std::vector<float>& wq, const std::vector<float>& wk) {
  const std::vector<double> pq = project_rows(q.data(), s.N, wq.data(), s.D, s.proj_dim());
  const std::vector<double> pk = project_rows(k.data(), s.M, wk.data(), s.D, s.proj_dim());
  std::vector<double> out(s.pairs());
  for (int i = 0; i < s.N; ++i)
    similarity_reference_row(s, pq.data() + std::size_t(i) * s.proj_dim(), pk, out.data() + std::size_t(i) * s.M);
  return out;
}

}  // namespace attn

// The similarity operation's definition, in double precision.
#pragma once

#include <cstddef>
#include <vector>

#include "tuner/ops/similarity_shape.hpp"

namespace attn {

// out[r][f] = x_r . w_f for ROWS rows of X [rows][D] and W [proj_dim][D], in double.
std::vector<double> project_rows(const float* x, std::size_t rows, const float* w, int D, int proj_dim);

// Output row i, M values: scale * (projected query i) . (projected key j) for every key j.
// PQ_ROW: proj_dim values; PK: [M][proj_dim].
void similarity_reference_row(const SimilarityShape& shape, const double* pq_row, const std::vector<double>& pk,
                              double* out);

// The whole [N][M] output, straight from the definition (small shapes: tests).
std::vector<double> similarity_reference(const SimilarityShape& shape, const std::vector<float>& q,
                                         const std::vector<float>& k, const std::vector<float>& wq,
                                         const std::vector<float>& wk);

}  // namespace attn

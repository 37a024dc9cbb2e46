// The deformable attention operation's definition: one query's output in double
// precision, as ms_deform_attn_core_pytorch computes it (grid_sample,
// align_corners=False, zero padding).
#pragma once

#include <vector>

#include "tuner/ops/deformable_shape.hpp"

namespace attn {

struct DeformableValues {
  std::vector<float> value, loc, attn;  // layouts of kernels/common/deformable_params.h
};

// Bilinear sample of a map [h][w] whose pixel (y, x) is map[(y*w + x) * stride]
// at pixel coordinates (y, x), pixels outside the map counting as 0.
double bilinear_zero_padded(const float* map, int h, int w, long long stride, double y, double x);

// Writes query (b, q)'s output, heads * channels values.
void deformable_reference_query(const DeformableShape& shape, const DeformableValues& in, int b, int q, double* out);

}  // namespace attn

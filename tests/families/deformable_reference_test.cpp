// The deformable attention reference on cases small enough to compute by hand
// (grid_sample's align_corners=False pixel centres, zero padding, levels,
// heads and channels), the problem's inputs and verification, and the
// tolerance against the kernels' float arithmetic on the standard shape's levels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tuner/ops/deformable.hpp"
#include "tuner/ops/deformable_reference.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

TEST(DeformableReference, BilinearAtPixelCentresCornersAndOutside) {
  const float map[] = {1, 2, 3, 4};  // 2x2: row y=0 is 1 2, row y=1 is 3 4
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 0, 0), 1);
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 1, 0), 3);  // y picks the row
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 0, 0.25), 1.25);
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 0.5, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, -0.5, -0.5), 0.25);  // three corners are padding
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 1.5, 1.5), 1.0);     // 0.25 * 4
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, -1, 0), 0);
  EXPECT_DOUBLE_EQ(bilinear_zero_padded(map, 2, 2, 1, 0, 2), 0);
}

DeformableShape shape(int levels, int heads, int channels, int points) {
  DeformableShape s;
  s.B = 1;
  s.Nq = 1;
  s.heads = heads;
  s.channels = channels;
  s.levels = levels;
  s.points = points;
  return s;
}

TEST(DeformableReference, LocationIsXThenYOverTheMapWithPixelCentresAtHalves) {
  DeformableShape s = shape(1, 1, 1, 2);
  s.level_h[0] = 2;
  s.level_w[0] = 3;
  DeformableValues in;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x) in.value.push_back(float(10 * y + x));
  // (x, y) = (0.5, 0.25) is pixel (1, 0); (1/6, 0.75) is pixel (0, 1)
  in.loc = {0.5f, 0.25f, float(1.0 / 6.0), 0.75f};
  in.attn = {1.0f, 0.5f};
  double out = 0;
  deformable_reference_query(s, in, 0, 0, &out);
  EXPECT_NEAR(out, 1.0 + 0.5 * 10.0, 1e-6);  // 1/6 is not exact in float: a 1e-7 pixel shift
}

TEST(DeformableReference, LevelsStartWhereTheLastOneEnds) {
  DeformableShape s = shape(2, 1, 1, 1);
  s.level_h = {1, 2};
  s.level_w = {1, 2};
  DeformableValues in;
  in.value = {5, 1, 2, 3, 4};           // level 0: 1x1; level 1: 2x2
  in.loc = {0.5f, 0.5f, 0.75f, 0.25f};  // level 0: its one pixel; level 1: pixel (x=1, y=0)
  in.attn = {0.25f, 1.0f};
  double out = 0;
  deformable_reference_query(s, in, 0, 0, &out);
  EXPECT_DOUBLE_EQ(out, 0.25 * 5 + 2);
}

TEST(DeformableReference, HeadsAndChannelsInterleaveInValueAndOut) {
  DeformableShape s = shape(1, 2, 2, 1);
  s.level_h[0] = 1;
  s.level_w[0] = 1;
  DeformableValues in;
  in.value = {1, 2, 30, 40};          // [pixel 0][head][channel]
  in.loc = {0.5f, 0.5f, 0.5f, 0.5f};  // [head][level][point][xy]
  in.attn = {1.0f, 0.5f};             // [head][level][point]
  double out[4];
  deformable_reference_query(s, in, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1);
  EXPECT_DOUBLE_EQ(out[1], 2);
  EXPECT_DOUBLE_EQ(out[2], 15);
  EXPECT_DOUBLE_EQ(out[3], 20);
}

json detr_fields(int Nq, int points, int B = 1) {
  return {{"B", B},    {"Nq", Nq},  {"heads", 8}, {"channels", 32}, {"levels", 4}, {"points", points},
          {"H0", 100}, {"W0", 152}, {"H1", 50},   {"W1", 76},       {"H2", 25},    {"W2", 38},
          {"H3", 13},  {"W3", 19},  {"H4", 0},    {"W4", 0}};
}

std::vector<float> floats(const HostBuffer& b) {
  std::vector<float> v(b.data.size() / 4);
  std::memcpy(v.data(), b.data.data(), v.size() * 4);
  return v;
}

// The CUDA kernel's arithmetic (kernels/cuda/deformable_attn.cu, df::corners):
// float coordinates by one fmaf, float weights, float accumulation in point order.
std::vector<float> float_kernel(const DeformableShape& s, const DeformableValues& in) {
  const int H = s.heads, C = s.channels, L = s.levels, P = s.points, S = s.values_per_image();
  std::vector<float> out(s.out_elements());
  for (int b = 0; b < s.B; ++b)
    for (int q = 0; q < s.Nq; ++q)
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < C; ++c) {
          float acc = 0;
          for (int l = 0; l < L; ++l)
            for (int p = 0; p < P; ++p) {
              const std::size_t i = ((((std::size_t)b * s.Nq + q) * H + h) * L + l) * P + p;
              const int hl = s.level_h[l], wl = s.level_w[l];
              const float x = std::fmaf(in.loc[2 * i], float(wl), -0.5f), y = std::fmaf(in.loc[2 * i + 1], float(hl), -0.5f);
              const float x0 = std::floor(x), y0 = std::floor(y), fx = x - x0, fy = y - y0;
              const float wy[2] = {1 - fy, fy}, wx[2] = {1 - fx, fx};
              for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                  const int yy = int(y0) + dy, xx = int(x0) + dx;
                  if (yy < 0 || yy >= hl || xx < 0 || xx >= wl) continue;
                  const float w = in.attn[i] * wy[dy] * wx[dx];
                  acc =
                      std::fmaf(w, in.value[(((std::size_t)b * S + s.level_start(l) + yy * wl + xx) * H + h) * C + c], acc);
                }
            }
          out[(((std::size_t)b * s.Nq + q) * H + h) * C + c] = acc;
        }
  return out;
}

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
  std::vector<std::byte> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(DeformableProblem, InputsFollowTheContract) {
  const json f = detr_fields(10, 4, 2);
  const auto p = deformable_operation().make_problem(f, 5);
  const auto& b = p->buffers();
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].name, "value");
  EXPECT_EQ(b[0].data.size(), 2u * 20197 * 8 * 32 * 4);
  EXPECT_EQ(b[1].data.size(), 2u * 10 * 8 * 4 * 4 * 2 * 4);
  EXPECT_EQ(b[3].name, "out");
  EXPECT_TRUE(b[3].is_output);
  const auto loc = floats(b[1]), attn = floats(b[2]);
  for (float x : loc) ASSERT_TRUE(x >= 0 && x < 1);
  for (std::size_t g = 0; g < attn.size(); g += 16) {  // a softmax over levels x points per (query, head)
    double sum = 0;
    for (int i = 0; i < 16; ++i) sum += attn[g + i];
    ASSERT_NEAR(sum, 1.0, 1e-6);
  }
  deformable_params params;
  ASSERT_EQ(p->params_bytes().size(), sizeof params);
  std::memcpy(&params, p->params_bytes().data(), sizeof params);
  EXPECT_EQ(params.S, 20197);
  EXPECT_EQ(params.level_start[3], 15200 + 3800 + 950);
  EXPECT_EQ(params.level_w[1], 76);
}

TEST(DeformableProblem, KernelArithmeticIsWellWithinTheTolerance) {
  const json f = detr_fields(300, 8, 2);
  const auto& op = deformable_operation();
  const auto p = op.make_problem(f, 11);
  const DeformableShape s = DeformableShape::from_json(f);
  const auto& b = p->buffers();
  const DeformableValues in{floats(b[0]), floats(b[1]), floats(b[2])};
  const auto out = bytes_of(float_kernel(s, in));
  const Tolerance tol = op.default_tolerance(f);
  const VerifyReport r = p->verify({out}, tol);
  EXPECT_TRUE(r.passed) << nlohmann::json(r).dump();
  EXPECT_LT(r.rel_l2, tol.rel_l2 / 5) << nlohmann::json(r).dump();
  EXPECT_LT(r.max_abs, tol.max_abs / 5) << nlohmann::json(r).dump();
}

TEST(DeformableProblem, VerifyCatchesWrongAndUnwrittenOutputs) {
  const json f = detr_fields(20, 4);
  const auto p = deformable_operation().make_problem(f, 2);
  const DeformableShape s = DeformableShape::from_json(f);
  const auto& b = p->buffers();
  auto good = float_kernel(s, {floats(b[0]), floats(b[1]), floats(b[2])});
  const Tolerance tol = deformable_operation().default_tolerance(f);
  ASSERT_TRUE(p->verify({bytes_of(good)}, tol).passed);

  auto wrong = good;
  wrong[(7 * 8 + 3) * 32 + 5] += 1e-3f;  // query 7, head 3, channel 5
  const VerifyReport r = p->verify({bytes_of(wrong)}, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.worst.find("out[b=0,q=7,h=3,c=5]"), std::string::npos) << r.worst;

  auto unwritten = good;
  unwritten.back() = std::nanf("");
  EXPECT_EQ(p->verify({bytes_of(unwritten)}, tol).nonfinite, 1);
}

TEST(DeformableOperation, ShapeChecksNameTheLevelField) {
  const auto& op = deformable_operation();
  EXPECT_EQ(op.check_shape(detr_fields(100, 4)), "");
  json f = detr_fields(100, 4);
  f["levels"] = 3;  // H3/W3 still set
  EXPECT_NE(op.check_shape(f).find("H3 is set but levels is 3"), std::string::npos) << op.check_shape(f);
  f = detr_fields(100, 4);
  f["W2"] = 0;
  EXPECT_NE(op.check_shape(f).find("W2 must be at least 1"), std::string::npos) << op.check_shape(f);
  f = detr_fields(100, 4);
  f["levels"] = 6;
  EXPECT_NE(op.check_shape(f).find("levels must be 1 to 5"), std::string::npos);
  f = detr_fields(100, 4);
  f["points"] = 0;
  EXPECT_NE(op.check_shape(f).find("points must be at least 1"), std::string::npos);
}

}  // namespace
}  // namespace attn

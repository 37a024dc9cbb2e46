// The seed-002 operations' CPU references on cases small enough to compute by
// hand (the seed's worked examples among them), their shapes' checks, FLOP
// counts, and the problems' verification of wrong and unwritten outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tuner/ops/linear_attention.hpp"
#include "tuner/ops/linear_attention_reference.hpp"
#include "tuner/ops/multihead_attention.hpp"
#include "tuner/ops/multihead_examples.hpp"
#include "tuner/ops/multihead_reference.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

MultiheadShape mh_shape(int N, int d_model, int h, int window = 0) {
  MultiheadShape s;
  s.N = N, s.d_model = d_model, s.h = h, s.window = window;
  s.scale = 1.0 / std::sqrt(double(d_model / h));
  return s;
}

// The spec loader's defaults, applied by hand.
json mh_fields(json given) {
  json f = {{"h", 1}, {"window", 0}, {"scale", nullptr}, {"inputs", "random"}};
  f.update(given);
  return f;
}

std::vector<std::byte> floats(const std::vector<float>& x) {
  std::vector<std::byte> b(x.size() * 4);
  std::memcpy(b.data(), x.data(), b.size());
  return b;
}

std::vector<float> as_floats(const std::vector<std::byte>& b) {
  std::vector<float> x(b.size() / 4);
  std::memcpy(x.data(), b.data(), b.size());
  return x;
}

TEST(MultiheadReference, SeedExampleToItsPrintedDigits) {
  const MultiheadExample& ex = *find_multihead_example("example-mha");
  const MultiheadShape s = mh_shape(ex.N, ex.d_model, ex.h);
  const double printed[2][4] = {{2.39, 2.89, 3.50, 4.00}, {2.50, 3.00, 3.50, 4.00}};
  for (int i = 0; i < 2; ++i)
    for (int head = 0; head < 2; ++head) {
      double out[2];
      multihead_reference_row(s, ex.q.data(), ex.k.data(), ex.v.data(), head, i, out);
      for (int c = 0; c < 2; ++c) EXPECT_NEAR(out[c], printed[i][2 * head + c], 0.005) << i << " " << head;
    }
}

TEST(MultiheadReference, SlidingWindowSeedExampleInClosedForm) {
  const MultiheadExample& ex = *find_multihead_example("example-sliding-window");
  const MultiheadShape s = mh_shape(ex.N, ex.d_model, ex.h, ex.window);
  // Row 0: scores 1/2 and 0, so o = v0 + (v1 - v0) / (1 + e^(1/2)); row 1 symmetric.
  const double w = 1.0 / (1.0 + std::exp(0.5));
  double out[4];
  multihead_reference_row(s, ex.q.data(), ex.k.data(), ex.v.data(), 0, 0, out);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(out[c], 1 + c + 4 * w, 1e-15);
  multihead_reference_row(s, ex.q.data(), ex.k.data(), ex.v.data(), 0, 1, out);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(out[c], 5 + c - 4 * w, 1e-15);
}

TEST(MultiheadReference, WindowLeavesOutKeysBeyondIt) {
  // Four rows, one column, window 1: row 0 sees keys 0 and 1 only.
  MultiheadShape s = mh_shape(4, 1, 1, 1);
  s.scale = 1.0;
  const std::vector<float> q = {0, 0, 0, 0}, k = {0, 0, 0, 0}, v = {1, 3, 100, 1000};
  double out[1];
  multihead_reference_row(s, q.data(), k.data(), v.data(), 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  multihead_reference_row(s, q.data(), k.data(), v.data(), 0, 3, out);
  EXPECT_DOUBLE_EQ(out[0], 550.0);
  EXPECT_DOUBLE_EQ(s.attended_pairs(), 10.0);
}

TEST(MultiheadReference, HeadsUseOnlyTheirColumns) {
  // Two heads of one column: head 1's query is large, head 0's zero.
  MultiheadShape s = mh_shape(2, 2, 2);
  s.scale = 1.0;
  const std::vector<float> q = {0, 20, 0, 20}, k = {0, 1, 0, 0}, v = {1, 7, 3, 9};
  double out[1];
  multihead_reference_row(s, q.data(), k.data(), v.data(), 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 2.0);  // uniform over keys 0 and 1 of column 0
  multihead_reference_row(s, q.data(), k.data(), v.data(), 1, 0, out);
  EXPECT_NEAR(out[0], 7.0, 1e-6);  // key 0 scores 20, key 1 scores 0
}

TEST(MultiheadOperation, ShapeChecksAndFlops) {
  const Operation& op = multihead_attention_operation();
  EXPECT_NE(op.check_shape(mh_fields({{"N", 8}, {"d_model", 6}, {"h", 4}})), "");
  EXPECT_EQ(op.check_shape(mh_fields({{"N", 8}, {"d_model", 8}, {"h", 4}})), "");
  EXPECT_NE(op.check_shape(mh_fields({{"N", 3}, {"d_model", 4}, {"h", 2}, {"inputs", "example-mha"}})), "");
  EXPECT_EQ(op.check_shape(mh_fields({{"N", 2}, {"d_model", 4}, {"h", 2}, {"inputs", "example-mha"}})), "");
  const auto p = op.make_problem(mh_fields({{"N", 100}, {"d_model", 64}, {"h", 2}, {"window", 10}}), 1);
  // Pairs: 100 rows x 21 keys minus the 2 * (10 + 9 + ... + 1) cut at the ends.
  EXPECT_DOUBLE_EQ(p->flops(), 4.0 * 2 * (100 * 21 - 110) * 32);
  EXPECT_EQ(op.variables(mh_fields({{"N", 100}, {"d_model", 64}, {"h", 2}})).at("d_k"), 32);
}

TEST(MultiheadOperation, ExampleInputsAreTheSeeds) {
  const auto p = multihead_attention_operation().make_problem(
      mh_fields({{"N", 2}, {"d_model", 4}, {"h", 2}, {"inputs", "example-mha"}}), 7);
  const std::vector<float> q = as_floats(p->buffers().at(0).data);
  EXPECT_EQ(q, (std::vector<float>{1, 0, 2, 3, 4, 5, 6, 7}));
}

TEST(MultiheadOperation, VerifyCatchesWrongAndUnwrittenOutputs) {
  const json f = mh_fields({{"N", 2}, {"d_model", 4}, {"h", 2}, {"inputs", "example-mha"}});
  const Operation& op = multihead_attention_operation();
  const auto p = op.make_problem(f, 1);
  const Tolerance tol = op.default_tolerance(f);
  // The exact answer (double reference rounded to float) passes.
  const MultiheadExample& ex = *find_multihead_example("example-mha");
  std::vector<float> good(8);
  for (int i = 0; i < 2; ++i)
    for (int head = 0; head < 2; ++head) {
      double out[2];
      multihead_reference_row(mh_shape(2, 4, 2), ex.q.data(), ex.k.data(), ex.v.data(), head, i, out);
      good[i * 4 + head * 2] = float(out[0]), good[i * 4 + head * 2 + 1] = float(out[1]);
    }
  EXPECT_TRUE(p->verify({floats(good)}, tol).passed);
  std::vector<float> wrong = good;
  wrong[5] += 0.01f;
  const VerifyReport r = p->verify({floats(wrong)}, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.worst.find("o[i=1,head=0,c=1]"), std::string::npos) << r.worst;
  std::vector<float> unwritten = good;
  unwritten[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(p->verify({floats(unwritten)}, tol).nonfinite, 1);
}

TEST(LinearAttentionReference, FeatureMapIsEluPlusOne) {
  EXPECT_DOUBLE_EQ(linear_attention_phi(2.0), 3.0);
  EXPECT_DOUBLE_EQ(linear_attention_phi(0.0), 1.0);
  EXPECT_DOUBLE_EQ(linear_attention_phi(-1.0), std::exp(-1.0));
}

TEST(LinearAttentionReference, SeedExampleIsExactThirteenths) {
  // phi(q0) = phi(k0) = (2, 1, 1, 1), phi(q1) = phi(k1) = (1, 2, 1, 1): row 0 = (37, 50, 63, 76) / 13,
  // row 1 = (41, 54, 67, 80) / 13, which the seed prints as 2.8461537 ... 6.1538463.
  LinearAttentionShape s;
  s.M = 2, s.d = 4;
  const std::vector<float> q = {1, 0, 0, 0, 0, 1, 0, 0}, v = {1, 2, 3, 4, 5, 6, 7, 8};
  const LinearAttentionState st = linear_attention_state(s, q.data(), v.data());
  EXPECT_EQ(st.z, (std::vector<double>{3, 3, 2, 2}));
  const double want[2][4] = {{37, 50, 63, 76}, {41, 54, 67, 80}};
  for (int i = 0; i < 2; ++i) {
    double out[4];
    linear_attention_reference_row(st, q.data(), i, out);
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(out[c], want[i][c] / 13, 1e-15);
  }
}

TEST(LinearAttentionOperation, ShapeChecksFlopsAndVerification) {
  const Operation& op = linear_attention_operation();
  const json f = {{"M", 2}, {"d", 4}, {"inputs", "example-linear"}};
  EXPECT_EQ(op.check_shape(f), "");
  EXPECT_NE(op.check_shape({{"M", 3}, {"d", 4}, {"inputs", "example-linear"}}), "");
  const auto p = op.make_problem(f, 1);
  EXPECT_DOUBLE_EQ(p->flops(), 4.0 * 2 * 4 * 4);
  const Tolerance tol = op.default_tolerance(f);
  std::vector<float> good;
  for (double x : {37, 50, 63, 76, 41, 54, 67, 80}) good.push_back(float(x / 13));
  EXPECT_TRUE(p->verify({floats(good)}, tol).passed);
  good[0] = 2.9f;
  EXPECT_FALSE(p->verify({floats(good)}, tol).passed);
  good[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(p->verify({floats(good)}, tol).nonfinite, 1);
}

}  // namespace
}  // namespace attn

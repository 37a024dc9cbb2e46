// The similarity reference on cases small enough to compute by hand, and the
// problem's inputs, verification and shape checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tuner/ops/similarity.hpp"
#include "tuner/ops/similarity_reference.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

SimilarityShape tiny(int N, int M, int D, int heads, int head_dim, double temperature = 1.0) {
  SimilarityShape s;
  s.N = N;
  s.M = M;
  s.D = D;
  s.heads = heads;
  s.head_dim = head_dim;
  s.temperature = temperature;
  return s;
}

TEST(SimilarityReference, OneHeadIsTheProjectedDotProductOverTheTemperature) {
  // q . wq = 3 (first coordinate), k . wk = 11 (second): 33 / 2
  const auto out = similarity_reference(tiny(1, 1, 2, 1, 1, 2.0), {3, 5}, {7, 11}, {1, 0}, {0, 1});
  EXPECT_DOUBLE_EQ(out[0], 16.5);
}

TEST(SimilarityReference, HeadsAreAveraged) {
  // head 0: (1*1)(1*3) = 3, head 1: (1*2)(1*4) = 8, mean 5.5
  const auto out = similarity_reference(tiny(1, 1, 1, 2, 1), {1}, {1}, {1, 2}, {3, 4});
  EXPECT_DOUBLE_EQ(out[0], 5.5);
}

TEST(SimilarityReference, FeaturesOfAHeadAreSummed) {
  // one head of two features: (1*1)(1*1) + (1*2)(1*3) = 7
  const auto out = similarity_reference(tiny(1, 1, 1, 1, 2), {1}, {1}, {1, 2}, {1, 3});
  EXPECT_DOUBLE_EQ(out[0], 7.0);
}

TEST(SimilarityReference, OutputIsQueriesByKeys) {
  const auto out = similarity_reference(tiny(2, 3, 1, 1, 1), {1, 2}, {1, 10, 100}, {1}, {1});
  const std::vector<double> want = {1, 10, 100, 2, 20, 200};
  EXPECT_EQ(out, want);
}

json fields(int N, int M, int D, int heads, int head_dim, int keys_ahead = 0) {
  return {{"N", N},
          {"M", M},
          {"D", D},
          {"heads", heads},
          {"head_dim", head_dim},
          {"temperature", 1.0},
          {"keys_ahead", keys_ahead}};
}

std::vector<float> floats(const HostBuffer& b) {
  std::vector<float> v(b.data.size() / 4);
  std::memcpy(v.data(), b.data.data(), v.size() * 4);
  return v;
}

// The problem's own inputs through the reference, rounded to float: what a correct kernel returns.
std::vector<std::byte> correct_output(const Problem& p, const SimilarityShape& s) {
  const auto& b = p.buffers();
  const auto ref = similarity_reference(s, floats(b[0]), floats(b[1]), floats(b[2]), floats(b[3]));
  std::vector<std::byte> out(ref.size() * 4);
  for (std::size_t e = 0; e < ref.size(); ++e) {
    const float x = static_cast<float>(ref[e]);
    std::memcpy(out.data() + e * 4, &x, 4);
  }
  return out;
}

TEST(SimilarityProblem, BuffersFollowTheContract) {
  const auto& op = similarity_operation();
  const auto p = op.make_problem(fields(5, 7, 8, 2, 4), 1);
  const auto& b = p->buffers();
  ASSERT_EQ(b.size(), 6u);
  const char* names[] = {"q", "k", "wq", "wk", "pk", "out"};
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b[i].name, names[i]);
  EXPECT_EQ(b[0].data.size(), 5u * 8 * 4);
  EXPECT_EQ(b[2].data.size(), 8u * 8 * 4);
  EXPECT_EQ(b[4].data.size(), 16u);  // keys not projected ahead: a placeholder
  EXPECT_TRUE(b[5].is_output);
  EXPECT_EQ(b[5].data.size(), 5u * 7 * 4);
  EXPECT_EQ(p->params_bytes().size(), sizeof(similarity_params));
  EXPECT_EQ(p->work_unit(), "pairs");
  EXPECT_DOUBLE_EQ(p->work_items(), 35.0);
}

TEST(SimilarityProblem, KeysAheadAreTheProjectedKeys) {
  const auto p = similarity_operation().make_problem(fields(3, 4, 8, 2, 4, 1), 7);
  const auto& b = p->buffers();
  const auto pk = floats(b[4]);
  const auto exact = project_rows(floats(b[1]).data(), 4, floats(b[3]).data(), 8, 8);
  ASSERT_EQ(pk.size(), exact.size());
  for (std::size_t e = 0; e < pk.size(); ++e) EXPECT_EQ(pk[e], static_cast<float>(exact[e]));
  // The key projection is no longer the kernels' work.
  EXPECT_LT(p->flops(), similarity_operation().make_problem(fields(3, 4, 8, 2, 4, 0), 7)->flops());
}

TEST(SimilarityProblem, VerifyAcceptsTheReferenceAndCatchesErrors) {
  const json f = fields(9, 6, 16, 3, 4);
  const SimilarityShape s = SimilarityShape::from_json(f);
  const auto& op = similarity_operation();
  const auto p = op.make_problem(f, 3);
  const Tolerance tol = op.default_tolerance(f);
  auto out = correct_output(*p, s);
  EXPECT_TRUE(p->verify({out}, tol).passed);

  auto wrong = out;
  float x;
  std::memcpy(&x, wrong.data() + (4 * 6 + 5) * 4, 4);
  x += 1e-2f;
  std::memcpy(wrong.data() + (4 * 6 + 5) * 4, &x, 4);
  const VerifyReport r = p->verify({wrong}, tol);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.worst.find("out[i=4,j=5]"), std::string::npos) << r.worst;

  auto unwritten = out;
  const std::uint32_t nan = 0x7fc00000u;
  std::memcpy(unwritten.data() + 3 * 4, &nan, 4);
  const VerifyReport u = p->verify({unwritten}, tol);
  EXPECT_FALSE(u.passed);
  EXPECT_EQ(u.nonfinite, 1);
}

TEST(SimilarityProblem, SampledRowsForLargeShapes) {
  const json f = fields(600, 5, 4, 1, 4);
  const auto p = similarity_operation().make_problem(f, 1);
  Tolerance tol = similarity_operation().default_tolerance(f);
  tol.max_rows = 50;
  const auto out = correct_output(*p, SimilarityShape::from_json(f));
  const VerifyReport r = p->verify({out}, tol);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.rows_checked, 50);
  EXPECT_EQ(r.rows_total, 600);
}

TEST(SimilarityOperation, ToleranceGrowsWithTheSummationLength) {
  const auto& op = similarity_operation();
  const Tolerance small = op.default_tolerance(fields(8, 8, 64, 1, 64));
  const Tolerance bert = op.default_tolerance(fields(8, 8, 768, 12, 64));
  EXPECT_LT(small.rel_l2, bert.rel_l2);
  EXPECT_LT(bert.rel_l2, 3e-5);  // fp32 over 768 + 768 terms: a few units of 1e-6 are expected
}

TEST(SimilarityOperation, ShapeChecks) {
  const auto& op = similarity_operation();
  EXPECT_EQ(op.check_shape(fields(8, 8, 768, 12, 64)), "");
  EXPECT_NE(op.check_shape(fields(8, 8, 30, 1, 4)).find("D (30) must be a multiple of 4"), std::string::npos);
  EXPECT_NE(op.check_shape(fields(8, 8, 32, 1, 6)).find("head_dim"), std::string::npos);
  EXPECT_NE(op.check_shape(fields(8, 0, 32, 1, 4)).find("M must be at least 1"), std::string::npos);
  EXPECT_NE(op.check_shape(fields(8, 8, 32, 1, 4, 2)).find("keys_ahead"), std::string::npos);
  json cold = fields(8, 8, 32, 1, 4);
  cold["temperature"] = 0.0;
  EXPECT_NE(op.check_shape(cold).find("temperature"), std::string::npos);
}

}  // namespace
}  // namespace attn

// The attention reference on cases small enough to compute by hand, and the
// problem's verification catching wrong and unwritten outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tuner/core/half.hpp"
#include "tuner/ops/attention.hpp"
#include "tuner/ops/attention_reference.hpp"

namespace attn {
namespace {

AttentionShape tiny(int Nq, int Nkv, int D = 4) {
  AttentionShape s;
  s.B = 1;
  s.Hq = 1;
  s.Hkv = 1;
  s.Nq = Nq;
  s.Nkv = Nkv;
  s.D = D;
  s.scale = 1.0;
  return s;
}

TEST(AttentionReference, OneKeyGivesItsValue) {
  const AttentionShape s = tiny(1, 1);
  AttentionValues in{{1, 2, 3, 4}, {0.5, 0.5, 0.5, 0.5}, {7, 8, 9, 10}, {}, {}};
  double out[4];
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 7);
  EXPECT_DOUBLE_EQ(out[3], 10);
}

TEST(AttentionReference, SinkTakesItsShareOfTheDenominatorOnly) {
  AttentionShape s = tiny(1, 1);
  s.sinks = true;
  AttentionValues in{{0, 0, 0, 0}, {0, 0, 0, 0}, {2, 2, 2, 2}, {}, {0.0f}};
  double out[4];
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1.0);  // score 0 and sink 0: half of v
}

TEST(AttentionReference, SoftmaxWeightsTwoKeys) {
  const AttentionShape s = tiny(1, 2, 1);
  AttentionValues in{{1}, {0, 1}, {0, 1}, {}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_NEAR(out[0], std::exp(1.0) / (1.0 + std::exp(1.0)), 1e-15);
}

TEST(AttentionReference, CausalIsBottomRightAligned) {
  AttentionShape s = tiny(2, 3, 1);
  s.causal = true;
  AttentionValues in{{0, 0}, {0, 0, 0}, {1, 2, 4}, {}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);  // position 1: keys 0..1
  EXPECT_DOUBLE_EQ(out[0], 1.5);
  attention_reference_row(s, in, 0, 0, 1, out);  // position 2: keys 0..2
  EXPECT_NEAR(out[0], 7.0 / 3.0, 1e-15);
}

TEST(AttentionReference, WindowAndMaskRemoveKeys) {
  AttentionShape s = tiny(1, 4, 1);
  s.window = 1;  // position 3 sees keys 2 and 3
  AttentionValues in{{0}, {0, 0, 0, 0}, {100, 100, 1, 3}, {}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  s.window = 0;
  s.mask = true;
  in.mask = {-INFINITY, -INFINITY, 0, -INFINITY};
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1.0);
}

TEST(AttentionReference, AlibiPenalisesDistance) {
  AttentionShape s = tiny(1, 2, 1);
  s.max_bias = 8;  // one head: slope m0^1 = 2^-8
  AttentionValues in{{0}, {0, 0}, {0, 1}, {}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);
  const double slope = std::pow(2.0, -8.0);
  EXPECT_NEAR(out[0], 1.0 / (1.0 + std::exp(-slope)), 1e-7);  // key 0 is one step further from position 1
}

TEST(AttentionReference, GqaReadsTheSharedKvHead) {
  AttentionShape s = tiny(1, 1, 1);
  s.Hq = 4;
  s.Hkv = 2;
  AttentionValues in{{0, 0, 0, 0}, {0, 0}, {10, 20}, {}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 3, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 20);
  attention_reference_row(s, in, 0, 1, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 10);
}

TEST(AttentionReference, SoftcapCapsTheScaledScoreBeforeTheMask) {
  AttentionShape s = tiny(1, 2, 1);
  s.scale = 2.0;
  s.softcap = 1.0;
  s.mask = true;
  // Scores 2 * (1 * 3) = 6 and 0, capped to tanh(6) and 0; the mask then adds 0.5 to key 1.
  AttentionValues in{{1}, {3, 0}, {1, 0}, {0.0f, 0.5f}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);
  const double a = std::tanh(6.0), b = 0.5;
  EXPECT_NEAR(out[0], std::exp(a) / (std::exp(a) + std::exp(b)), 1e-12);
  // Capping after the mask would give tanh(0.5) for key 1: a different value.
  const double after = std::tanh(0.5);
  EXPECT_GT(std::abs(out[0] - std::exp(a) / (std::exp(a) + std::exp(after))), 1e-3);
  s.softcap = 0;  // off: the plain score 6
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_NEAR(out[0], std::exp(6.0) / (std::exp(6.0) + std::exp(0.5)), 1e-12);
}

TEST(AttentionReference, MaskScaledAlibiMultipliesTheMaskBySlope) {
  AttentionShape s = tiny(1, 3, 1);
  s.Hq = 2;  // n_head_log2 = 2: m0 = 2^(-8/2) = 1/16; head 1's slope m0^2 = 1/256
  s.Hkv = 1;
  s.mask = true;
  s.max_bias = 8;
  s.alibi_mode = AlibiMode::MaskScaled;
  // Query at position 2; the mask holds -|2 - j| and -inf for key 0.
  AttentionValues in{{0, 0}, {0, 0, 0}, {5, 1, 3}, {-INFINITY, -1, 0}, {}};
  double out[1];
  attention_reference_row(s, in, 0, 1, 0, out);
  const double slope = 1.0 / 256;
  const double w1 = std::exp(-slope), w2 = 1.0;
  EXPECT_NEAR(out[0], (w1 * 1 + w2 * 3) / (w1 + w2), 1e-12);
  attention_reference_row(s, in, 0, 0, 0, out);  // head 0: slope 1/16
  EXPECT_NEAR(out[0], (std::exp(-1.0 / 16) * 1 + 3) / (std::exp(-1.0 / 16) + 1), 1e-12);
  // The distance convention on the same inputs: mask plus -slope * distance, another value.
  s.alibi_mode = AlibiMode::Distance;
  attention_reference_row(s, in, 0, 1, 0, out);
  const double d1 = std::exp(-1 - slope);
  EXPECT_NEAR(out[0], (d1 * 1 + 3) / (d1 + 1), 1e-12);
  // Without ALiBi, mask_scaled is the plain additive mask: slope 1.
  s.alibi_mode = AlibiMode::MaskScaled;
  s.max_bias = 0;
  attention_reference_row(s, in, 0, 1, 0, out);
  EXPECT_NEAR(out[0], (std::exp(-1.0) * 1 + 3) / (std::exp(-1.0) + 1), 1e-12);
}

TEST(AttentionReference, MaskSlopesFollowLlamaCppBeyondThePowerOfTwoHeads) {
  AttentionShape s = tiny(1, 1, 4);
  s.Hq = s.Hkv = 6;  // n_head_log2 = 4: heads 4 and 5 use m1 = 2^(-8/2/4) = 2^-1
  s.max_bias = 8;
  EXPECT_NEAR(s.alibi_slope(0), 0.25, 1e-7);       // m0 = 2^(-8/4), to the power 1
  EXPECT_NEAR(s.alibi_slope(3), 1.0 / 256, 1e-9);  // m0^4
  EXPECT_NEAR(s.alibi_slope(4), 0.5, 1e-7);        // m1^1
  EXPECT_NEAR(s.alibi_slope(5), 0.125, 1e-7);      // m1^3
}

TEST(AttentionReference, PerHeadMaskIsReadAtItsHead) {
  AttentionShape s = tiny(1, 2, 1);
  s.B = 2;
  s.Hq = s.Hkv = 2;
  s.mask = true;
  s.mask_layout = MaskLayout::BHQK;  // [B][Hq][Nq][Nkv]: each head its own row
  AttentionValues in;
  in.q = {0, 0, 0, 0};
  in.k = {0, 0, 0, 0, 0, 0, 0, 0};
  in.v = {1, 3, 1, 3, 1, 3, 1, 3};
  in.mask = {0, -INFINITY, -INFINITY, 0, 0, 0, 0, -INFINITY};  // (b0 h0), (b0 h1), (b1 h0), (b1 h1)
  double out[1];
  attention_reference_row(s, in, 0, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1);
  attention_reference_row(s, in, 0, 1, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 3);
  attention_reference_row(s, in, 1, 0, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 2);
  attention_reference_row(s, in, 1, 1, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1);
  s.mask_layout = MaskLayout::HQK;  // [Hq][Nq][Nkv]: sequence 1 reads sequence 0's rows
  attention_reference_row(s, in, 1, 1, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 3);
  EXPECT_EQ(s.mask_elements(), 4u);
  s.mask_layout = MaskLayout::QK;
  attention_reference_row(s, in, 1, 1, 0, out);
  EXPECT_DOUBLE_EQ(out[0], 1);
  EXPECT_EQ(s.mask_index(1, 1, 0, 1), 1u);
}

nlohmann::json fields(const char* dtype) {
  return {{"dtype", dtype}, {"B", 2},      {"Hq", 4},   {"Hkv", 2},   {"Nq", 5},         {"Nkv", 9},        {"D", 8},
          {"causal", 1},    {"window", 0}, {"mask", 1}, {"sinks", 1}, {"max_bias", 8.0}, {"scale", nullptr}};
}

TEST(AttentionProblem, InputsAreRandomNotZero) {
  const auto problem = attention_operation().make_problem(fields("f32_f16"), 3);
  const auto& q = problem->buffers().at(0).data;
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < q.size() / 4; ++i) {
    float x;
    std::memcpy(&x, q.data() + 4 * i, 4);
    nonzero += x != 0.0f;
  }
  EXPECT_GT(nonzero, q.size() / 4 * 9 / 10);
}

TEST(AttentionProblem, SequenceInputsDoNotDependOnBatchSize) {
  auto f1 = fields("f16");
  f1["B"] = 1;
  auto f3 = fields("f16");
  f3["B"] = 3;
  const auto p1 = attention_operation().make_problem(f1, 11);
  const auto p3 = attention_operation().make_problem(f3, 11);
  for (int b = 0; b < 4; ++b) {  // q, k, v, mask: sequence 0 leads each buffer
    const auto& a = p1->buffers()[b].data;
    const auto& c = p3->buffers()[b].data;
    ASSERT_EQ(std::memcmp(a.data(), c.data(), a.size()), 0) << p1->buffers()[b].name;
  }
}

TEST(AttentionProblem, F32HoldsEveryTensorAsFloatAndAnF32MaskPerHead) {
  auto f = fields("f32");
  f["mask_dtype"] = "f32";
  f["mask_layout"] = "bhqk";
  const auto problem = attention_operation().make_problem(f, 3);
  const auto& bufs = problem->buffers();
  const std::size_t q = 2 * 4 * 5 * 8, kv = 2 * 2 * 9 * 8, mask = 2 * 4 * 5 * 9;
  EXPECT_EQ(bufs[0].data.size(), q * 4);
  EXPECT_EQ(bufs[1].data.size(), kv * 4);
  EXPECT_EQ(bufs[2].data.size(), kv * 4);
  EXPECT_EQ(bufs[3].data.size(), mask * 4);
  EXPECT_EQ(bufs[5].data.size(), q * 4);
  float x;
  std::memcpy(&x, bufs[1].data.data() + 4, 4);
  EXPECT_TRUE(x >= -1 && x < 1 && x != 0) << x;
  const auto tol = attention_operation().default_tolerance(f);
  EXPECT_LE(tol.rel_l2, 1e-5);
  // Heads draw their own mask rows.
  EXPECT_NE(std::memcmp(bufs[3].data.data(), bufs[3].data.data() + 5 * 9 * 4, 5 * 9 * 4), 0);
}

TEST(AttentionProblem, MaskScaledMaskHoldsNegativeDistances) {
  auto f = fields("f32_f16");
  f["alibi_mode"] = "mask_scaled";
  const auto problem = attention_operation().make_problem(f, 3);
  const auto& m = problem->buffers()[3].data;
  int finite = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 9; ++j) {
      std::uint16_t w;
      std::memcpy(&w, m.data() + (i * 9 + j) * 2, 2);
      const float x = f16_to_f32(w);
      if (std::isinf(x)) continue;
      ++finite;
      EXPECT_EQ(x, -float(std::abs(4 + i - j))) << i << "," << j;  // position 4 + i
    }
  EXPECT_GT(finite, 40);
}

// Computes the expected output with the reference itself, then checks verify()
// accepts it and rejects a perturbed and an unwritten one.
TEST(AttentionProblem, VerifyAcceptsTheReferenceAndCatchesErrorsAndPoison) {
  for (const char* dtype : {"f32_f16", "f16", "bf16", "f32"}) {
    auto f = fields(dtype);
    if (std::string(dtype) == "f32") {  // and the other new forms
      f["softcap"] = 1.5;
      f["mask_dtype"] = "f32";
      f["mask_layout"] = "hqk";
      f["alibi_mode"] = "mask_scaled";
    }
    const AttentionShape s = AttentionShape::from_json(f);
    const auto problem = attention_operation().make_problem(f, 5);
    const auto& bufs = problem->buffers();
    AttentionValues in;
    const bool f32q = s.dtype == AttnDtype::F32_F16 || s.dtype == AttnDtype::F32;
    const bool f32kv = s.dtype == AttnDtype::F32;
    const bool bf = s.dtype == AttnDtype::BF16;
    auto widen = [&](const std::vector<std::byte>& b, bool f32, bool bf) {
      std::vector<float> out;
      for (std::size_t i = 0; i < b.size() / (f32 ? 4 : 2); ++i) {
        if (f32) {
          float x;
          std::memcpy(&x, b.data() + 4 * i, 4);
          out.push_back(x);
        } else {
          std::uint16_t w;
          std::memcpy(&w, b.data() + 2 * i, 2);
          out.push_back(bf ? bf16_to_f32(w) : f16_to_f32(w));
        }
      }
      return out;
    };
    in.q = widen(bufs[0].data, f32q, bf);
    in.k = widen(bufs[1].data, f32kv, bf);
    in.v = widen(bufs[2].data, f32kv, bf);
    in.mask = widen(bufs[3].data, s.mask_f32, false);
    in.sinks = widen(bufs[4].data, true, false);

    std::vector<std::byte> o(bufs[5].data.size());
    auto store = [&](std::vector<std::byte>& out, std::size_t e, double value) {
      if (f32q) {
        const float x = float(value);
        std::memcpy(out.data() + 4 * e, &x, 4);
      } else {
        const std::uint16_t w = bf ? f32_to_bf16(float(value)) : f32_to_f16(float(value));
        std::memcpy(out.data() + 2 * e, &w, 2);
      }
    };
    std::vector<double> expected;
    for (int b = 0; b < s.B; ++b)
      for (int h = 0; h < s.Hq; ++h)
        for (int i = 0; i < s.Nq; ++i) {
          double row[8];
          attention_reference_row(s, in, b, h, i, row);
          for (int d = 0; d < s.D; ++d) {
            store(o, ((std::size_t(b) * s.Hq + h) * s.Nq + i) * s.D + d, row[d]);
            expected.push_back(row[d]);
          }
        }
    const Tolerance tol = attention_operation().default_tolerance(f);
    EXPECT_TRUE(problem->verify({o}, tol).passed) << dtype;

    auto wrong = o;
    const std::size_t mid = expected.size() / 2;
    store(wrong, mid, expected[mid] + 0.25);  // one element off by 0.25
    EXPECT_FALSE(problem->verify({wrong}, tol).passed) << dtype;

    auto unwritten = o;
    std::memcpy(unwritten.data() + unwritten.size() - bufs[5].poison.size(), bufs[5].poison.data(), bufs[5].poison.size());
    const VerifyReport r = problem->verify({unwritten}, tol);
    EXPECT_FALSE(r.passed) << dtype;
    EXPECT_EQ(r.nonfinite, 1) << dtype;
  }
}

}  // namespace
}  // namespace attn

// A kernel with a FlashAttention-2-style argument list (pointers, strides,
// lengths, a float softmax scale) tuned on PoCL through the spec's `arguments`:
// every configuration verifies, the recorded launch carries the scalars it got,
// and the same kernel given one wrong stride fails verification.
#include <gtest/gtest.h>

#include "tests/support/pocl_sweep.hpp"

namespace attn {
namespace {

TEST(StridedAttention, EveryConfigurationVerifiesThroughItsDeclaredArguments) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::source_dir() / "configs" / "strided_attention.json", dir);
  int ok = 0;
  for (const auto& g : lb.at("groups")) {
    for (const auto& e : g.at("entries")) {
      const std::string where = g.at("shape").get<std::string>() + " " + e.at("key").get<std::string>();
      const std::string status = e.at("status");
      ASSERT_TRUE(status == "ok" || status == "skipped") << where << ": " << e.dump().substr(0, 2000);
      if (status != "ok") continue;
      ++ok;
      EXPECT_LT(e.at("verify").at("rel_l2").get<double>(), 1e-4) << where;
      const auto& args = e.at("launches").at(0).at("arguments");
      ASSERT_EQ(args.size(), 22u) << where;
      EXPECT_EQ(args.at(0).at("name"), "q");
      EXPECT_EQ(args.at(20).at("name"), "softmax_scale");
      EXPECT_EQ(args.at(20).at("type"), "float32");
      if (g.at("shape") == "decode-1x96-d64-scale") {
        EXPECT_FLOAT_EQ(args.at(20).at("value").get<float>(), 0.3f);
      }
      if (g.at("shape") == "gqa-causal-24x40-d32") {
        EXPECT_EQ(args.at(8).at("value"), 40 * 32) << "stride_kh";
      }
    }
  }
  EXPECT_GE(ok, 8);
}

TEST(StridedAttention, AWrongStrideFailsVerification) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::data("strided_attention_wrong_stride.json"), dir);
  int incorrect = 0;
  for (const auto& g : lb.at("groups")) {
    for (const auto& e : g.at("entries")) {
      if (e.at("status") == "skipped") continue;
      EXPECT_EQ(e.at("status"), "incorrect") << e.dump().substr(0, 2000);
      incorrect += e.at("status") == "incorrect";
    }
  }
  EXPECT_GE(incorrect, 3);
}

}  // namespace
}  // namespace attn

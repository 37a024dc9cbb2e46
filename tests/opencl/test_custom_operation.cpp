// A custom operation on PoCL: soft-capped attention declared in its spec
// (buffers, scalars) and verified against the naive kernel of the same spec.
// Every tuned configuration verifies; against a planted wrong reference every
// one is reported incorrect.
#include <gtest/gtest.h>

#include "tests/support/pocl_sweep.hpp"

namespace attn {
namespace {

TEST(CustomOperation, TheTiledKernelVerifiesAgainstItsNaiveReferenceKernel) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::source_dir() / "configs" / "softcap_attention.json", dir);
  int tiled_ok = 0;
  for (const auto& g : lb.at("groups")) {
    for (const auto& e : g.at("entries")) {
      const std::string where =
          g.at("kernel").get<std::string>() + "/" + g.at("shape").get<std::string>() + " " + e.at("key").get<std::string>();
      const std::string status = e.at("status");
      ASSERT_TRUE(status == "ok" || status == "skipped") << where << ": " << e.dump().substr(0, 2000);
      if (status != "ok" || g.at("kernel") != "tiled") continue;
      ++tiled_ok;
      EXPECT_LT(e.at("verify").at("rel_l2").get<double>(), 1e-5) << where;
      EXPECT_GT(e.at("verify").at("rows_checked").get<long long>(), 0) << where;
      EXPECT_GT(e.at("gflops").get<double>(), 0) << where;  // the spec's flops expression
    }
  }
  EXPECT_GE(tiled_ok, 10);
}

TEST(CustomOperation, APlantedWrongReferenceMakesEveryTunedConfigurationIncorrect) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::data("softcap_wrong_reference.json"), dir);
  int incorrect = 0;
  for (const auto& g : lb.at("groups")) {
    if (g.at("kernel") != "tiled") continue;
    for (const auto& e : g.at("entries")) {
      if (e.at("status") == "skipped") continue;
      EXPECT_EQ(e.at("status"), "incorrect") << e.dump().substr(0, 2000);
      EXPECT_NE(e.value("reason", "").find("the reference kernel gives"), std::string::npos) << e.dump().substr(0, 2000);
      incorrect += e.at("status") == "incorrect";
    }
  }
  EXPECT_GE(incorrect, 10);
}

}  // namespace
}  // namespace attn

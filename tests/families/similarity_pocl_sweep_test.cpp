// Real sweeps of configs/similarity_small.json on PoCL: every configuration of
// the OpenCL similarity kernels (strategy 0, the original per-pair kernel, and
// strategy 4, the projection GEMMs, with keys projected by the kernels and
// ahead) verifies on every shape; the CUDA-only strategies are left out.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/support/pocl_sweep.hpp"

namespace attn {
namespace {

nlohmann::json sweep_opencl(const std::vector<std::string>& kernels) {
  test::TempDir dir;
  SweepOptions opt = test::pocl_verify_options(test::source_dir() / "configs" / "similarity_small.json", dir);
  opt.kernels = kernels;
  return test::sweep_leaderboard(opt);
}

// Every entry verified; returns how many there were.
int expect_all_verified(const nlohmann::json& lb) {
  EXPECT_TRUE(lb.at("complete").get<bool>());
  int entries = 0;
  for (const auto& g : lb.at("groups")) {
    SCOPED_TRACE(fmt::format("{} / {}", g.at("kernel").get<std::string>(), g.at("shape").get<std::string>()));
    for (const auto& e : g.at("entries")) {
      ++entries;
      EXPECT_EQ(e.at("status"), "ok") << e.dump();
      if (e.at("status") == "ok") {
        EXPECT_EQ(e.at("throughput").at("unit"), "pairs") << e.dump();
      }
    }
  }
  return entries;
}

TEST(SimilarityPoclSweep, SequentialEveryConfigurationVerifies) {
  EXPECT_EQ(expect_all_verified(sweep_opencl({"sequential"})), 4 * 4);  // 4 configurations x 4 shapes
}

TEST(SimilarityPoclSweep, ProjectedEveryConfigurationVerifies) {
  EXPECT_EQ(expect_all_verified(sweep_opencl({"projected"})), 8 * 5);  // 8 configurations x 5 shapes
}

}  // namespace
}  // namespace attn

// Real sweeps of the multi-head, sliding-window and linear attention small specs on PoCL: every configuration of every
// OpenCL kernel verifies against the double reference on every shape (odd
// sizes, d_k = 2, windows wider than the sequence, split and unsplit states).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/support/pocl_sweep.hpp"

namespace attn {
namespace {

// Sweeps SPEC's OpenCL kernels in this process with minimal timing; returns the leaderboard.
nlohmann::json sweep_opencl(const std::string& spec, const std::vector<std::string>& kernels) {
  test::TempDir dir;
  SweepOptions opt = test::pocl_verify_options(test::source_dir() / "configs" / spec, dir);
  opt.kernels = kernels;
  return test::sweep_leaderboard(opt);
}

// Every entry ran and verified, except presets that break a constraint.
void expect_all_verified(const nlohmann::json& lb, int min_entries) {
  EXPECT_TRUE(lb.at("complete").get<bool>());
  int entries = 0;
  for (const auto& g : lb.at("groups")) {
    SCOPED_TRACE(fmt::format("{} / {}", g.at("kernel").get<std::string>(), g.at("shape").get<std::string>()));
    for (const auto& e : g.at("entries")) {
      ++entries;
      EXPECT_EQ(e.at("status"), "ok") << e.dump();
    }
  }
  EXPECT_GE(entries, min_entries);
}

TEST(MultiheadLinearPoclSweep, MultiheadSmall) {
  expect_all_verified(sweep_opencl("multihead_attention_small.json", {"multihead"}), 60);
}

TEST(MultiheadLinearPoclSweep, SlidingWindowSmall) {
  expect_all_verified(sweep_opencl("sliding_window_attention_small.json", {"band"}), 30);
}

TEST(MultiheadLinearPoclSweep, LinearAttentionSmall) {
  expect_all_verified(sweep_opencl("linear_attention_small.json", {"linear"}), 60);
}

}  // namespace
}  // namespace attn

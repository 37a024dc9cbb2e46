// llama.cpp's f32/f16 flash attention kernel on PoCL: every one of its combinations A-H either
// verifies against the CPU reference or carries the reason it was skipped,
// and nothing in the small spec is incorrect; head dimensions that no output
// tile divides (padded last pass) verify on every row.
#include <gtest/gtest.h>

#include <set>

#include "tests/support/pocl_sweep.hpp"

namespace attn {
namespace {

TEST(FlashAttnF32F16, CombinationsAtoHVerifyOrCarryTheirReason) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::source_dir() / "configs" / "flash_attn_f32_f16_small.json", dir);

  std::set<std::string> seen;
  int prefill_groups = 0, decode_ok = 0;
  for (const auto& g : lb.at("groups")) {
    const std::string where = g.at("kernel").get<std::string>() + "/" + g.at("shape").get<std::string>();
    for (const auto& e : g.at("entries")) {
      const std::string status = e.at("status");
      ASSERT_TRUE(status == "ok" || status == "skipped") << where << " " << e.at("key") << ": " << e.dump().substr(0, 2000);
      if (status == "ok") {
        EXPECT_TRUE(e.at("verify").at("passed").get<bool>());
        EXPECT_EQ(e.at("verify").at("nonfinite").get<int>(), 0);
        EXPECT_LT(e.at("verify").at("rel_l2").get<double>(), 1e-4);
      } else {
        EXPECT_FALSE(e.at("reason").get<std::string>().empty()) << where << " " << e.at("key");
      }
      if (g.at("kernel") == "prefill" && !e.value("preset", "").empty()) seen.insert(e.at("preset").get<std::string>());
      if (g.at("kernel") == "decode" && status == "ok") ++decode_ok;
    }
    if (g.at("kernel") == "prefill") {
      ++prefill_groups;
      EXPECT_EQ(g.at("baseline").at("preset"), "A") << where;
    }
  }
  EXPECT_GT(prefill_groups, 0);
  EXPECT_GT(decode_ok, 0);
  for (const char* label : {"A", "B", "C", "D", "E", "F", "G", "H"}) EXPECT_TRUE(seen.contains(label)) << label;
}

// D = 80 and D = 40 with output tiles that do not divide them: the last pass
// is padded. Every row is verified, so a padded column stored into the next
// row (written one pass earlier) or past the output's end fails the check.
TEST(FlashAttnF32F16, HeadDimsThatNoOutputTileDividesVerifyOnEveryRow) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::data("head_dims_f32_f16.json"), dir);

  std::set<std::string> padded_seen;  // kernel/D of configurations whose tile does not divide D
  for (const auto& g : lb.at("groups")) {
    const std::string kernel = g.at("kernel");
    const int d = g.at("shape_fields").at("D").get<int>();
    for (const auto& e : g.at("entries")) {
      const std::string where = kernel + "/" + g.at("shape").get<std::string>() + " " + e.at("key").get<std::string>();
      ASSERT_EQ(e.at("status"), "ok") << where << ": " << e.dump().substr(0, 2000);
      const auto& v = e.at("verify");
      EXPECT_TRUE(v.at("passed").get<bool>()) << where;
      EXPECT_EQ(v.at("nonfinite").get<int>(), 0) << where;
      EXPECT_EQ(v.at("rows_checked"), v.at("rows_total")) << where;
      int tile = -1;  // params are [name, value] pairs
      for (const auto& pv : e.at("params"))
        if (pv.at(0) == (kernel == "prefill" ? "DV_TILE" : "DEC_DV_TILE")) tile = pv.at(1).get<int>();
      ASSERT_GE(tile, 0) << where;
      // DEC_DV_TILE 0 at D = 40 pads to 48 reduction columns.
      if ((tile != 0 && d % tile != 0) || (tile == 0 && d == 40)) padded_seen.insert(kernel + "/" + std::to_string(d));
    }
  }
  for (const char* k : {"prefill/80", "prefill/40", "decode/80", "decode/40", "decode_split/80", "decode_split/40"})
    EXPECT_TRUE(padded_seen.contains(k)) << k;
}

}  // namespace
}  // namespace attn

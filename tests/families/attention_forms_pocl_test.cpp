// The attention operation's dtype f32, f32 and per-head masks, mask_scaled
// ALiBi and soft-capping, swept on PoCL with a kernel written the way
// llama.cpp's ggml-opencl flash_attn_f32 is (tests/data/llama_style_attention.*):
// the correct kernel verifies on every shape, and each planted fault is
// reported incorrect on the shape that exercises it (and passes where it is inert).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "tests/support/pocl_sweep.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

enum Fault { correct = 0, no_softcap = 1, distance_alibi = 2, shared_mask = 3, half_precision = 4 };

// One sweep of the spec on PoCL, shared by the tests: each (shape, FAULT)'s entry.
const std::map<std::pair<std::string, int>, nlohmann::json>& entries() {
  static const auto all = [] {
    test::TempDir dir;
    const nlohmann::json lb =
        test::sweep_leaderboard(test::pocl_verify_options(test::data("llama_style_attention.json"), dir));
    std::map<std::pair<std::string, int>, nlohmann::json> out;
    for (const auto& g : lb.at("groups"))
      for (const auto& e : g.at("entries"))
        for (const auto& pv : e.at("params"))
          if (pv.at(0) == "FAULT") out[{g.at("shape").get<std::string>(), pv.at(1).get<int>()}] = e;
    return out;
  }();
  return all;
}

std::string status(const std::string& shape, Fault fault) {
  const auto it = entries().find({shape, int(fault)});
  return it == entries().end() ? "(not run)" : it->second.at("status").get<std::string>();
}

std::string dump(const std::string& shape, Fault fault) {
  const auto it = entries().find({shape, int(fault)});
  return it == entries().end() ? "" : it->second.dump().substr(0, 1500);
}

TEST(AttentionForms, TheCorrectKernelVerifiesEveryRowOfEveryShape) {
  for (const char* shape :
       {"f32", "f32-mask-per-head", "f16-mask-per-head-shared-by-batch", "alibi-mask-scaled", "softcap"}) {
    ASSERT_EQ(status(shape, correct), "ok") << shape << ": " << dump(shape, correct);
    const auto& v = entries().at({shape, int(correct)}).at("verify");
    EXPECT_EQ(v.at("rows_checked"), v.at("rows_total")) << shape;
    EXPECT_LE(v.at("rel_l2").get<double>(), 1e-5) << shape << ": f32's default tolerance";
  }
}

TEST(AttentionForms, AllF32ToleranceCatchesAKernelComputingInHalfPrecision) {
  EXPECT_EQ(status("f32", half_precision), "incorrect") << dump("f32", half_precision);
}

TEST(AttentionForms, APerHeadMaskReadAsSharedIsIncorrect) {
  EXPECT_EQ(status("f32-mask-per-head", shared_mask), "incorrect") << dump("f32-mask-per-head", shared_mask);
  EXPECT_EQ(status("f16-mask-per-head-shared-by-batch", shared_mask), "incorrect");
  EXPECT_EQ(status("alibi-mask-scaled", shared_mask), "ok") << "a bqk mask is shared by the heads: the fault is inert";
}

TEST(AttentionForms, DistanceAlibiOnAMaskScaledShapeIsIncorrect) {
  EXPECT_EQ(status("alibi-mask-scaled", distance_alibi), "incorrect") << dump("alibi-mask-scaled", distance_alibi);
  EXPECT_EQ(status("f32-mask-per-head", distance_alibi), "ok") << "no ALiBi: the two conventions agree";
}

TEST(AttentionForms, DroppingTheSoftcapIsIncorrect) {
  EXPECT_EQ(status("softcap", no_softcap), "incorrect") << dump("softcap", no_softcap);
  EXPECT_EQ(status("f32", no_softcap), "ok") << "softcap 0: the fault is inert";
}

TEST(AttentionForms, ABadNewShapeFieldExitsTwoNamingTheFileAndField) {
  test::TempDir dir;
  nlohmann::json spec = nlohmann::json::parse(read_text_file(test::data("llama_style_attention.json")));
  spec["sources"]["opencl"] = (test::source_dir() / "tests/data/llama_style_attention.cl").string();
  for (const auto& [field, value, message] :
       {std::tuple{"mask_layout", nlohmann::json("bkq"), "'bkq' is not one of: bqk, bhqk, hqk, qk"},
        std::tuple{"alibi_mode", nlohmann::json("linear"), "'linear' is not one of: distance, mask_scaled"},
        std::tuple{"mask_dtype", nlohmann::json("f64"), "'f64' is not one of: f16, f32"},
        std::tuple{"dtype", nlohmann::json("f64"), "'f64' is not one of: f32_f16, f16, bf16, f32"},
        std::tuple{"softcap", nlohmann::json("50"), "expected a number"}}) {
    nlohmann::json bad = spec;
    bad["shapes"]["softcap"][field] = value;
    const auto path = dir.write("bad.json", bad.dump(2));
    const test::CommandResult r = test::run_cli({"space", path.string()});
    EXPECT_EQ(r.exit_code, 2) << field << ": " << r.err;
    EXPECT_NE(r.err.find(fmt::format("bad.json: shapes.softcap.{}", field)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace attn

// Every malformed spec gets its own message naming the file and the field.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

ojson valid_spec() {
  return ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "unit",
    "operation": "attention",
    "sources": { "opencl": "k.cl" },
    "shapes": { "s": { "B": 1, "Hq": 4, "Hkv": 2, "Nq": 16, "D": 64 } },
    "kernels": {
      "k": {
        "params": { "BLOCK_M": [16, 32], "BLOCK_N": [16, 32], "DV_TILE": [32, 64] },
        "defines": { "DK": "D" },
        "constraints": ["D % DV_TILE == 0"],
        "launches": [ { "entry": "attn", "grid": ["ceil_div(Nq, BLOCK_M)", "Hq", "B"], "block": ["BLOCK_M"] } ],
        "presets": { "A": { "BLOCK_M": 32, "BLOCK_N": 32, "DV_TILE": 32 } },
        "baseline": "A"
      }
    }
  })json");
}

struct Case {
  std::string name;
  std::function<void(ojson&)> mutate;
  std::string field;    // exact
  std::string message;  // substring
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class MalformedSpec : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedSpec, NamesFileFieldAndProblem) {
  const Case& c = GetParam();
  test::TempDir dir;
  dir.write("k.cl", "__kernel void attn() {}\n");
  ojson spec = valid_spec();
  c.mutate(spec);
  const auto path = dir.write("spec.json", spec.dump(2));
  try {
    load_spec(path);
    FAIL() << "loaded a malformed spec: " << c.name;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), c.field) << e.what();
    EXPECT_NE(e.message().find(c.message), std::string::npos) << "message: " << e.message();
    EXPECT_EQ(std::string(e.what()).rfind(path.string() + ": ", 0), 0u) << e.what();
  }
}

const Case kCases[] = {
    {"param_value_not_integer",
     [](ojson& s) {
       s["kernels"]["k"]["params"]["BLOCK_M"] = {16, 32, "64"};
     },
     "kernels.k.params.BLOCK_M[2]", "expected an integer, got string"},
    {"unknown_top_level_key", [](ojson& s) { s["kernel"] = 1; }, "kernel", "unknown key (allowed:"},
    {"unknown_kernel_key", [](ojson& s) { s["kernels"]["k"]["lanches"] = 1; }, "kernels.k.lanches", "unknown key"},
    {"unknown_name_in_constraint", [](ojson& s) { s["kernels"]["k"]["constraints"] = {"D % DV_TIL == 0"}; },
     "kernels.k.constraints[0]", "unknown name 'DV_TIL'"},
    {"unknown_name_in_launch", [](ojson& s) { s["kernels"]["k"]["launches"][0]["block"] = {"BLOCK_X"}; },
     "kernels.k.launches[0].block[0]", "unknown name 'BLOCK_X'"},
    {"missing_kernel_file", [](ojson& s) { s["sources"]["opencl"] = "missing.cl"; }, "sources.opencl",
     "kernel source not found: missing.cl"},
    {"unknown_backend", [](ojson& s) { s["sources"]["metal"] = "k.cl"; }, "sources.metal", "unknown backend"},
    {"missing_operation", [](ojson& s) { s.erase("operation"); }, "operation", "missing required field"},
    {"unknown_operation", [](ojson& s) { s["operation"] = "atention"; }, "operation", "unknown operation 'atention'"},
    {"shape_field_type", [](ojson& s) { s["shapes"]["s"]["Hq"] = 4.5; }, "shapes.s.Hq", "expected an integer, got a number"},
    {"unknown_shape_field", [](ojson& s) { s["shapes"]["s"]["heads"] = 4; }, "shapes.s.heads", "unknown shape field"},
    {"missing_shape_field", [](ojson& s) { s["shapes"]["s"].erase("D"); }, "shapes.s.D", "missing required field"},
    {"shape_relation", [](ojson& s) { s["shapes"]["s"]["Hkv"] = 3; }, "shapes.s", "Hq (4) must be a multiple of Hkv (3)"},
    {"shape_dtype_choice", [](ojson& s) { s["shapes"]["s"]["dtype"] = "fp8"; }, "shapes.s.dtype", "'fp8' is not one of"},
    {"shape_f32_dtype_is_known", [](ojson& s) { s["shapes"]["s"]["dtype"] = "f64"; }, "shapes.s.dtype",
     "is not one of: f32_f16, f16, bf16, f32"},
    {"shape_mask_dtype_choice", [](ojson& s) { s["shapes"]["s"]["mask_dtype"] = "bool"; }, "shapes.s.mask_dtype",
     "'bool' is not one of: f16, f32"},
    {"shape_mask_layout_choice", [](ojson& s) { s["shapes"]["s"]["mask_layout"] = "bq"; }, "shapes.s.mask_layout",
     "'bq' is not one of: bqk, bhqk, hqk, qk"},
    {"shape_alibi_mode_choice", [](ojson& s) { s["shapes"]["s"]["alibi_mode"] = "slope"; }, "shapes.s.alibi_mode",
     "'slope' is not one of: distance, mask_scaled"},
    {"shape_softcap_type", [](ojson& s) { s["shapes"]["s"]["softcap"] = "30"; }, "shapes.s.softcap", "expected a number"},
    {"shape_softcap_negative", [](ojson& s) { s["shapes"]["s"]["softcap"] = -1.0; }, "shapes.s",
     "softcap must be >= 0 (0 = off; got -1)"},
    {"shape_mask_scaled_without_mask", [](ojson& s) { s["shapes"]["s"]["alibi_mode"] = "mask_scaled"; }, "shapes.s",
     "alibi_mode mask_scaled needs mask 1"},
    {"kernel_unknown_shape", [](ojson& s) { s["kernels"]["k"]["shapes"] = {"nope"}; }, "kernels.k.shapes[0]",
     "no shape named 'nope'"},
    {"preset_missing_param", [](ojson& s) { s["kernels"]["k"]["presets"]["A"].erase("BLOCK_N"); }, "kernels.k.presets.A",
     "missing a value for parameter 'BLOCK_N'"},
    {"preset_unknown_param", [](ojson& s) { s["kernels"]["k"]["presets"]["A"]["BLOCK_K"] = 1; },
     "kernels.k.presets.A.BLOCK_K", "not a parameter of this kernel"},
    {"baseline_not_preset", [](ojson& s) { s["kernels"]["k"]["baseline"] = "Z"; }, "kernels.k.baseline",
     "'Z' is not one of this kernel's presets"},
    {"param_shadows_shape_variable", [](ojson& s) { s["kernels"]["k"]["params"]["D"] = {64}; }, "kernels.k.params.D",
     "is a shape variable"},
    {"define_not_identifier", [](ojson& s) { s["kernels"]["k"]["defines"]["1X"] = "D"; }, "kernels.k.defines.1X",
     "must be a C identifier"},
    {"too_many_grid_dims",
     [](ojson& s) {
       s["kernels"]["k"]["launches"][0]["grid"] = {1, 1, 1, 1};
     },
     "kernels.k.launches[0].grid", "expected 1 to 3 dimensions"},
    {"entry_not_identifier", [](ojson& s) { s["kernels"]["k"]["launches"][0]["entry"] = "my kernel"; },
     "kernels.k.launches[0].entry", "not a valid kernel entry point name"},
    {"no_launches", [](ojson& s) { s["kernels"]["k"]["launches"] = ojson::array(); }, "kernels.k.launches",
     "needs at least one launch"},
    {"empty_param_list", [](ojson& s) { s["kernels"]["k"]["params"]["BLOCK_M"] = ojson::array(); },
     "kernels.k.params.BLOCK_M", "expected at least one value"},
    {"repeated_param_value",
     [](ojson& s) {
       s["kernels"]["k"]["params"]["BLOCK_M"] = {16, 16};
     },
     "kernels.k.params.BLOCK_M", "values repeat"},
    {"format_version", [](ojson& s) { s["attn_tune_spec"] = 2; }, "attn_tune_spec", "unsupported spec format version"},
    {"cuda_arch", [](ojson& s) { s["cuda_arch"] = "hopper"; }, "cuda_arch", "like sm_90 or sm_90a"},
    {"tolerance_not_positive",
     [](ojson& s) {
       s["verify"] = {{"rel_l2", 0}};
     },
     "verify", "tolerances must be > 0"},
    {"params_not_object",
     [](ojson& s) {
       s["kernels"]["k"]["params"] = {1, 2};
     },
     "kernels.k.params", "expected an object, got an array"},
};

INSTANTIATE_TEST_SUITE_P(SpecLoader, MalformedSpec, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.name; });

TEST(SpecLoader, InvalidJsonIsReportedWithItsPosition) {
  test::TempDir dir;
  const auto path = dir.write("bad.json", "{\n  \"name\": \"x\",\n  oops\n}\n");
  try {
    load_spec(path);
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(e.message().find("not valid JSON"), std::string::npos);
    EXPECT_NE(e.message().find("line 3"), std::string::npos) << e.message();
  }
}

TEST(SpecLoader, ANamedConstraintIsShownByItsNameWhereItExcludes) {
  test::TempDir dir;
  dir.write("k.cl", "__kernel void attn() {}\n");
  ojson spec = valid_spec();
  spec["kernels"]["k"]["constraints"].push_back({{"name", "small_tiles"}, {"expr", "BLOCK_M * BLOCK_N <= 512"}});
  const Spec loaded = load_spec(dir.write("spec.json", spec.dump(2)));
  const KernelSpec& k = loaded.kernels.front();
  ASSERT_EQ(k.constraints.size(), 2u);
  EXPECT_EQ(k.constraints[0].label(), "`D % DV_TILE == 0`");
  EXPECT_EQ(k.constraints[1].label(), "small_tiles (`BLOCK_M * BLOCK_N <= 512`)");
  Bindings b = {{"D", 64}, {"DV_TILE", 32}, {"BLOCK_M", 32}, {"BLOCK_N", 32}};
  EXPECT_EQ(failed_constraint(k, b), "constraint small_tiles (`BLOCK_M * BLOCK_N <= 512`) is false");

  spec["kernels"]["k"]["constraints"][1] = {{"name", "not an identifier"}, {"expr", "1"}};
  EXPECT_THROW(load_spec(dir.write("spec.json", spec.dump(2))), SpecError);
  spec["kernels"]["k"]["constraints"][1] = {{"name", "x"}, {"expresion", "1"}};
  EXPECT_THROW(load_spec(dir.write("spec.json", spec.dump(2))), SpecError);
}

TEST(SpecLoader, MissingFile) { EXPECT_THROW(load_spec("/nonexistent/spec.json"), SpecError); }

TEST(SpecLoader, ValidSpecLoadsWithDefaultsApplied) {
  test::TempDir dir;
  dir.write("k.cl", "__kernel void attn() {}\n");
  const Spec spec = load_spec(dir.write("spec.json", valid_spec().dump()));
  ASSERT_EQ(spec.shapes.size(), 1u);
  const auto& f = spec.shapes[0].fields;
  EXPECT_EQ(f.at("Nkv").get<int>(), 16);  // defaults to Nq
  EXPECT_EQ(f.at("dtype").get<std::string>(), "f32_f16");
  EXPECT_EQ(f.at("causal").get<int>(), 0);
  ASSERT_EQ(spec.kernels.size(), 1u);
  EXPECT_EQ(spec.kernels[0].param_names(), (std::vector<std::string>{"BLOCK_M", "BLOCK_N", "DV_TILE"}));
  EXPECT_EQ(spec.kernels[0].shapes, std::vector<std::string>{"s"});
  EXPECT_EQ(spec.kernels[0].baseline, "A");
  EXPECT_EQ(spec.sha256.size(), 64u);
}

TEST(SpecLoader, EveryShippedSpecLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "configs")) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW(load_spec(entry.path())) << entry.path();
    ++loaded;
  }
  EXPECT_GT(loaded, 0);
}

}  // namespace
}  // namespace attn

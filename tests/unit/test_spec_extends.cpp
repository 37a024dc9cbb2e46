// A spec that extends another file: it takes that file's kernels, overrides single
// fields, and every error still names the file the bad value is written in.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

ojson base_spec() {
  return ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "full",
    "operation": "attention",
    "sources": { "opencl": "kernels/k.cl" },
    "shapes": { "big": { "B": 1, "Hq": 4, "Nq": 1024, "D": 64 } },
    "kernels": {
      "prefill": {
        "params": { "BLOCK_M": [16, 32, 64], "DV_TILE": [32, 64] },
        "constraints": ["D % DV_TILE == 0"],
        "launches": [ { "entry": "attn", "grid": ["ceil_div(Nq, BLOCK_M)", "Hq", "B"], "block": ["BLOCK_M"] } ],
        "presets": { "A": { "BLOCK_M": 32, "DV_TILE": 32 } },
        "baseline": "A"
      },
      "decode": {
        "params": { "WG": [32, 64] },
        "launches": [ { "entry": "attn_q1", "grid": ["Hq", "B"], "block": ["WG"] } ]
      }
    }
  })json");
}

ojson small_spec() {
  return ojson::parse(R"json({
    "attn_tune_spec": 1,
    "extends": "../full/full.json",
    "name": "small",
    "shapes": { "tiny": { "B": 1, "Hq": 2, "Nq": 40, "D": 64 } },
    "kernels": { "prefill": { "params": { "BLOCK_M": [32], "DV_TILE": [32] } } }
  })json");
}

// The base in full/ with its kernel source in full/kernels/, the extending spec in small/.
struct Tree {
  test::TempDir dir;
  std::filesystem::path base, spec;
  Tree(const ojson& base_json, const ojson& spec_json) {
    dir.write("full/kernels/k.cl", "__kernel void attn() {}\n");
    base = dir.write("full/full.json", base_json.dump(2));
    spec = dir.write("small/small.json", spec_json.dump(2));
  }
};

SpecError load_error(const std::filesystem::path& path) {
  try {
    load_spec(path);
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded " << path;
  return SpecError("", "", "");
}

TEST(SpecExtends, TakesTheExtendedKernelsAndOverridesSingleFields) {
  const Tree t(base_spec(), small_spec());
  const Spec spec = load_spec(t.spec);
  EXPECT_EQ(spec.name, "small");
  ASSERT_EQ(spec.shapes.size(), 1u);
  EXPECT_EQ(spec.shapes[0].name, "tiny");
  ASSERT_EQ(spec.kernels.size(), 2u);
  const KernelSpec& prefill = spec.kernel("prefill");
  ASSERT_EQ(prefill.params.size(), 2u);
  EXPECT_EQ(prefill.params[0].second, std::vector<ParamValue>{32});
  ASSERT_EQ(prefill.constraints.size(), 1u);
  EXPECT_EQ(prefill.constraints[0].text(), "D % DV_TILE == 0");
  EXPECT_EQ(prefill.launches.at(0).entry, "attn");
  EXPECT_EQ(prefill.baseline, "A");
  EXPECT_EQ(spec.kernel("decode").params[0].second, (std::vector<ParamValue>{32, 64}));
  EXPECT_EQ(prefill.shapes, std::vector<std::string>{"tiny"});
}

TEST(SpecExtends, SourcePathsAreRelativeToTheFileThatWritesThem) {
  const Tree t(base_spec(), small_spec());
  const Spec spec = load_spec(t.spec);
  EXPECT_EQ(spec.sources.at("opencl"), (t.dir.path() / "full/kernels/k.cl").lexically_normal());
}

TEST(SpecExtends, NullRemovesAnExtendedKernel) {
  ojson small = small_spec();
  small["kernels"]["decode"] = nullptr;
  const Tree t(base_spec(), small);
  const Spec spec = load_spec(t.spec);
  ASSERT_EQ(spec.kernels.size(), 1u);
  EXPECT_EQ(spec.kernels[0].name, "prefill");
}

TEST(SpecExtends, AKernelCanStartFromAnExtendedKernelOfAnotherName) {
  ojson small = small_spec();
  small["kernels"] = ojson::parse(R"({ "prefill": null, "decode": null, "window": { "extends": "prefill" } })");
  const Tree t(base_spec(), small);
  const Spec spec = load_spec(t.spec);
  ASSERT_EQ(spec.kernels.size(), 1u);
  EXPECT_EQ(spec.kernels[0].name, "window");
  EXPECT_EQ(spec.kernels[0].params[0].second, (std::vector<ParamValue>{16, 32, 64}));
}

TEST(SpecExtends, KernelsTheSpecNamesComeFirstInItsOrder) {
  ojson small = small_spec();
  small["kernels"] = ojson::parse(R"({ "decode": { "params": { "WG": [32] } }, "extra": {
      "params": { "X": [1] }, "launches": [ { "entry": "x", "grid": ["B"], "block": ["X"] } ] } })");
  const Tree t(base_spec(), small);
  const Spec spec = load_spec(t.spec);
  ASSERT_EQ(spec.kernels.size(), 3u);
  EXPECT_EQ(spec.kernels[0].name, "decode");
  EXPECT_EQ(spec.kernels[1].name, "extra");
  EXPECT_EQ(spec.kernels[2].name, "prefill");
}

TEST(SpecExtends, ABadValueInTheExtendedFileIsReportedAgainstThatFile) {
  ojson base = base_spec();
  base["kernels"]["prefill"]["launches"][0]["block"] = {"BLOCK_X"};
  const Tree t(base, small_spec());
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.file(), t.base.lexically_normal().string());
  EXPECT_EQ(e.field(), "kernels.prefill.launches[0].block[0]");
  EXPECT_NE(e.message().find("unknown name 'BLOCK_X'"), std::string::npos) << e.what();
}

TEST(SpecExtends, ABadInheritedValueOfARenamedKernelNamesWhereItIsWritten) {
  ojson base = base_spec();
  base["kernels"]["prefill"]["constraints"] = {"D % DV_TIL == 0"};
  ojson small = small_spec();
  small["kernels"] = ojson::parse(R"({ "prefill": null, "window": { "extends": "prefill" } })");
  const Tree t(base, small);
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.file(), t.base.lexically_normal().string());
  EXPECT_EQ(e.field(), "kernels.prefill.constraints[0]");
}

TEST(SpecExtends, ABadOverrideIsReportedAgainstTheExtendingFile) {
  ojson small = small_spec();
  small["kernels"]["prefill"]["params"]["BLOCK_M"] = {32, "64"};
  const Tree t(base_spec(), small);
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.file(), t.spec.string());
  EXPECT_EQ(e.field(), "kernels.prefill.params.BLOCK_M[1]");
}

TEST(SpecExtends, AnInheritedShapeListNamingAReplacedShapeNamesTheExtendedFile) {
  ojson base = base_spec();
  base["kernels"]["decode"]["shapes"] = {"big"};
  const Tree t(base, small_spec());
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.file(), t.base.lexically_normal().string());
  EXPECT_EQ(e.field(), "kernels.decode.shapes[0]");
  EXPECT_NE(e.message().find("no shape named 'big'"), std::string::npos) << e.what();
}

TEST(SpecExtends, RemovingOrExtendingAKernelTheBaseLacksIsAnError) {
  ojson small = small_spec();
  small["kernels"]["nosuch"] = nullptr;
  const Tree t(base_spec(), small);
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.field(), "kernels.nosuch");

  ojson renamed = small_spec();
  renamed["kernels"]["window"] = ojson::parse(R"({ "extends": "prefil" })");
  const Tree t2(base_spec(), renamed);
  const SpecError e2 = load_error(t2.spec);
  EXPECT_EQ(e2.file(), t2.spec.string());
  EXPECT_EQ(e2.field(), "kernels.window.extends");
  EXPECT_NE(e2.message().find("no kernel named 'prefil'"), std::string::npos) << e2.what();
}

TEST(SpecExtends, AMissingOrCircularExtendsIsAnError) {
  ojson small = small_spec();
  small["extends"] = "../full/nosuch.json";
  const Tree t(base_spec(), small);
  const SpecError e = load_error(t.spec);
  EXPECT_EQ(e.field(), "extends");
  EXPECT_NE(e.message().find("file not found"), std::string::npos) << e.what();

  ojson base = base_spec();
  base["extends"] = "../small/small.json";
  const Tree t2(base, small_spec());
  const SpecError e2 = load_error(t2.spec);
  EXPECT_EQ(e2.field(), "extends");
  EXPECT_NE(e2.message().find("cannot extend itself"), std::string::npos) << e2.what();
}

TEST(SpecExtends, TheSpecIdentityCoversTheExtendedFile) {
  const Tree t(base_spec(), small_spec());
  const Spec before = load_spec(t.spec);
  ASSERT_EQ(before.files.size(), 2u);
  EXPECT_EQ(before.files[1].path, t.base.lexically_normal());
  EXPECT_NE(before.sha256, sha256_file(t.spec));

  ojson base = base_spec();
  base["kernels"]["prefill"]["constraints"] = {"D % DV_TILE == 0", "BLOCK_M >= 16"};
  t.dir.write("full/full.json", base.dump(2));
  EXPECT_NE(load_spec(t.spec).sha256, before.sha256);

  EXPECT_EQ(load_spec(t.base).sha256, sha256_file(t.base)) << "a spec that extends nothing keeps its file's sha256";
}

}  // namespace
}  // namespace attn

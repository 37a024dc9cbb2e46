// Templated CUDA entries: "attn_fwd<BLOCK_M, BLOCK_N, true>" in a launch gets
// each configuration's values (and shape variables) substituted, a distinct
// instance is a distinct program, and a spec that cannot resolve one (an
// OpenCL source, a malformed instance) is refused naming the launch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/launch_plan.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

ojson spec_with_entry(const std::string& entry, const ojson& sources) {
  ojson spec = ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "unit",
    "operation": "attention",
    "shapes": { "s": { "B": 1, "Hq": 2, "Nq": 16, "D": 64 } },
    "kernels": {
      "k": {
        "params": { "BLOCK_M": [16, 32], "BLOCK_N": [32] },
        "launches": [ { "grid": ["Hq"], "block": ["BLOCK_M"] } ]
      }
    }
  })json");
  spec["sources"] = sources;
  spec["kernels"]["k"]["launches"][0]["entry"] = entry;
  return spec;
}

Spec load(const test::TempDir& dir, const ojson& spec) {
  dir.write("k.cu", "template <int M, int N, int D, bool B> __global__ void attn() {}\n");
  dir.write("k.cl", "__kernel void attn() {}\n");
  return load_spec(dir.write("spec.json", spec.dump(2)));
}

std::pair<std::string, std::string> load_error(const std::string& entry, const ojson& sources) {
  test::TempDir dir;
  try {
    load(dir, spec_with_entry(entry, sources));
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(TemplatedEntry, ParametersAndShapeVariablesAreSubstitutedAndLiteralsKept) {
  const Bindings b = {{"BLOCK_M", 64}, {"BLOCK_N", 32}, {"D", 128}, {"f", 7}, {"e3", 9}};
  EXPECT_EQ(instantiate_entry("attn_fwd<BLOCK_M, BLOCK_N, true>", b), "attn_fwd<64, 32, true>");
  EXPECT_EQ(instantiate_entry("attn_fwd<D,BLOCK_M>", b), "attn_fwd<128,64>");
  // Names that merely contain a parameter's name, literals with suffixes or exponents, and types stay as written.
  EXPECT_EQ(instantiate_entry("attn<BLOCK_MN, 0.5f, 1e3, float, -BLOCK_N>", b), "attn<BLOCK_MN, 0.5f, 1e3, float, -32>");
  // The function's own name is never substituted, nor is a plain entry touched.
  EXPECT_EQ(instantiate_entry("D<D>", b), "D<128>");
  EXPECT_EQ(instantiate_entry("BLOCK_M", b), "BLOCK_M");
}

TEST(TemplatedEntry, EachConfigurationLaunchesItsOwnInstanceAndIsItsOwnProgram) {
  test::TempDir dir;
  const Spec spec = load(dir, spec_with_entry("attn<BLOCK_M, BLOCK_N, D, true>", {{"cuda", "k.cu"}}));
  const Operation& op = find_operation(spec.operation);
  const Bindings variables = op.variables(spec.shapes[0].fields);
  const LaunchPlan small = plan_launches(spec.kernels[0], {{"BLOCK_M", 16}, {"BLOCK_N", 32}}, variables);
  const LaunchPlan large = plan_launches(spec.kernels[0], {{"BLOCK_M", 32}, {"BLOCK_N", 32}}, variables);
  ASSERT_EQ(small.launches.size(), 1u);
  EXPECT_EQ(small.launches[0].entry, "attn<16, 32, 64, true>");
  EXPECT_EQ(small.entries, std::vector<std::string>{"attn<16, 32, 64, true>"});
  EXPECT_EQ(large.launches[0].entry, "attn<32, 32, 64, true>");
  EXPECT_NE(program_key(small.defines, small.entries), program_key(large.defines, large.entries));
}

TEST(TemplatedEntry, KernelsWithTheSameDefinesButOtherEntriesAreOtherPrograms) {
  const std::vector<Define> defines = {{"BLOCK_M", 16}};
  EXPECT_NE(program_key(defines, {"attn"}), program_key(defines, {"attn_planted"}));
  EXPECT_EQ(program_key(defines, {"attn", "combine"}), program_key(defines, {"attn", "combine"}));
}

TEST(TemplatedEntry, OnAnOpenClSourceItIsASpecErrorNamingTheLaunch) {
  const auto [field, message] = load_error("attn<BLOCK_M, BLOCK_N, D, true>", {{"opencl", "k.cl"}});
  EXPECT_EQ(field, "kernels.k.launches[0].entry");
  EXPECT_NE(message.find("'attn<BLOCK_M, BLOCK_N, D, true>' is a templated entry"), std::string::npos) << message;
  EXPECT_NE(message.find("opencl has no templates"), std::string::npos) << message;
  // Both sources: the kernel must say it runs on CUDA alone.
  EXPECT_EQ(load_error("attn<BLOCK_M>", {{"opencl", "k.cl"}, {"cuda", "k.cu"}}).first, "kernels.k.launches[0].entry");
}

TEST(TemplatedEntry, AMalformedInstanceIsASpecErrorNamingTheLaunch) {
  for (const std::string entry : {"attn<BLOCK_M", "attn<vec<int>>", "<BLOCK_M>", "attn<BLOCK_M * 2>", "attn<BLOCK_M,>"}) {
    const auto [field, message] = load_error(entry, {{"cuda", "k.cu"}});
    EXPECT_EQ(field, "kernels.k.launches[0].entry") << entry;
    EXPECT_FALSE(message.empty()) << entry;
  }
  EXPECT_EQ(load_error("attn<BLOCK_M, BLOCK_N, D, false>", {{"cuda", "k.cu"}}).first, "(loaded)");
}

}  // namespace
}  // namespace attn

// A launch's geometry planned from the spec without a device: grids sized to the
// device's compute units (persistent kernels) and thread-block clusters.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/record/result.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;
using Dims = std::array<std::uint64_t, 3>;

// One kernel whose launch is LAUNCH, with params C (cluster) and P (persistent).
Spec spec_with_launch(const test::TempDir& dir, const ojson& launch, const ojson& constraints = ojson::array()) {
  dir.write("k.cu", "extern \"C\" __global__ void attn() {}\n");
  ojson spec = {{"attn_tune_spec", 1},
                {"name", "unit"},
                {"operation", "attention"},
                {"sources", {{"cuda", "k.cu"}}},
                {"shapes", {{"s", {{"B", 2}, {"Hq", 4}, {"Nq", 1000}, {"D", 64}}}}},
                {"kernels",
                 {{"k",
                   {{"params", {{"C", {1, 2}}, {"P", {0, 1}}}},
                    {"constraints", constraints},
                    {"launches", ojson::array({launch})}}}}}};
  return load_spec(dir.write("spec.json", spec.dump(2)));
}

LaunchPlan plan(const Spec& spec, Config config, Bindings variables) {
  return plan_launches(spec.kernel("k"), config, variables);
}

Bindings shape_variables(const Spec& spec) { return find_operation(spec.operation).variables(spec.shape("s").fields); }

std::string skip_reason(const Spec& spec, const Config& config) {
  try {
    plan(spec, config, shape_variables(spec));
  } catch (const Outcome& o) {
    EXPECT_EQ(o.status, Status::skipped);
    return o.reason;
  }
  return "planned";
}

TEST(LaunchPlan, APersistentGridTakesTheDevicesComputeUnitsAndThePlanningDefaultWithoutADevice) {
  test::TempDir dir;
  // 16 row blocks x 4 heads x 2 batches = 128 work items
  const Spec spec =
      spec_with_launch(dir, {{"entry", "attn"},
                             {"grid", {"P ? min(ceil_div(Nq, 64) * Hq * B, compute_units) : ceil_div(Nq, 64)"}},
                             {"block", {128}}});
  const Config persistent{{"C", 1}, {"P", 1}};
  EXPECT_EQ(plan(spec, persistent, with_compute_units(shape_variables(spec), 50)).launches[0].grid, (Dims{50, 1, 1}));
  EXPECT_EQ(plan(spec, persistent, with_compute_units(shape_variables(spec), 200)).launches[0].grid, (Dims{128, 1, 1}));
  // no device: an H100 / H200's 132 multiprocessors, whether the count is unknown (0) or not bound at all
  EXPECT_EQ(plan(spec, persistent, with_compute_units(shape_variables(spec), 0)).launches[0].grid, (Dims{128, 1, 1}));
  EXPECT_EQ(kPlanningComputeUnits, 132);
  EXPECT_EQ(plan(spec, {{"C", 1}, {"P", 0}}, shape_variables(spec)).launches[0].grid, (Dims{16, 1, 1}));
}

TEST(LaunchPlan, ComputeUnitsIsAVariableOfLaunchGridsOnly) {
  test::TempDir dir;
  try {
    spec_with_launch(dir, {{"entry", "attn"}, {"grid", {"Hq"}}, {"block", {"compute_units"}}});
    FAIL() << "a block size read compute_units";
  } catch (const SpecError& e) {
    EXPECT_NE(e.message().find("unknown name 'compute_units'"), std::string::npos) << e.what();
  }
}

TEST(LaunchPlan, ClusterDimensionsAreEvaluatedPerConfigurationAndRecordedOnTheLaunch) {
  test::TempDir dir;
  const Spec spec =
      spec_with_launch(dir, {{"entry", "attn"}, {"grid", {"C * 8", "Hq"}}, {"block", {128}}, {"cluster", {"C", 1, 1}}});
  EXPECT_EQ(plan(spec, {{"C", 2}, {"P", 0}}, shape_variables(spec)).launches[0].cluster, (Dims{2, 1, 1}));
  EXPECT_EQ(plan(spec, {{"C", 1}, {"P", 0}}, shape_variables(spec)).launches[0].cluster, (Dims{1, 1, 1}));
}

TEST(LaunchPlan, AClusterThatDoesNotDivideTheGridSkipsTheConfigurationSayingWhichDimension) {
  test::TempDir dir;
  const Spec spec =
      spec_with_launch(dir, {{"entry", "attn"}, {"grid", {"Hq", 3}}, {"block", {128}}, {"cluster", {1, "C + 1"}}});
  EXPECT_EQ(skip_reason(spec, {{"C", 1}, {"P", 0}}), "attn: grid[1] = 3 is not a multiple of the cluster's 2");
  EXPECT_EQ(skip_reason(spec, {{"C", 2}, {"P", 0}}), "planned");
}

TEST(LaunchPlan, AClusterOfZeroOrOfMoreThanSixteenBlocksIsRefused) {
  test::TempDir dir;
  const Spec zero = spec_with_launch(dir, {{"entry", "attn"}, {"grid", {64}}, {"block", {128}}, {"cluster", {"C - 1"}}});
  EXPECT_EQ(skip_reason(zero, {{"C", 1}, {"P", 0}}), "launches[0].cluster[0] is 0");
  test::TempDir dir2;
  const Spec big =
      spec_with_launch(dir2, {{"entry", "attn"}, {"grid", {64, 4}}, {"block", {128}}, {"cluster", {"16 * C", 2}}});
  EXPECT_EQ(skip_reason(big, {{"C", 1}, {"P", 0}}), "attn: a cluster of 16x2x1 blocks exceeds 16");
}

TEST(LaunchPlan, TheWarpSpecializedKernelsClusterLaunchIsAnEvenGridWithHalfTileKAndVBoxes) {
  const Spec spec = load_spec(test::source_dir() / "configs" / "flash_attn_fwd_ws.json");
  const KernelSpec& k = spec.kernel("prefill_ws");
  const Operation& op = find_operation(spec.operation);
  // fp16-d128-n1024-causal: B = 4, Hq = 16, Nq = 1024 -> 8 row blocks of 128 rows
  const Bindings vars = with_compute_units(op.variables(spec.shape("fp16-d128-n1024-causal").fields), 132);
  Config c{{"WS_CONSUMERS", 2},  {"CONS_ROWS", 64}, {"BLOCK_N", 128},  {"STAGES", 2},  {"REG_SPLIT", 1},
           {"OVERLAP", 1},       {"PINGPONG", 1},   {"PERSISTENT", 0}, {"CLUSTER", 2}, {"LATE_PACK", 0},
           {"ITEM_PIPELINE", 0}, {"CONS_TILES", 0}, {"STORE_O_TMA", 0}};
  const auto set = [&c](const std::string& name, int value) {  // by name: the key's order is the spec's
    for (auto& [n, v] : c)
      if (n == name) v = value;
  };
  LaunchPlan p = plan_launches(k, c, vars);
  EXPECT_EQ(p.launches[0].cluster, (Dims{2, 1, 1}));
  EXPECT_EQ(p.launches[0].grid[0] % 2, 0u);
  EXPECT_EQ(p.tensor_maps[1].box, (std::vector<std::uint32_t>{64, 64, 1}));  // K: half of BLOCK_N's rows
  EXPECT_EQ(p.tensor_maps[0].box, (std::vector<std::uint32_t>{64, 64, 1}));  // Q: unchanged
  EXPECT_EQ(p.tensor_maps[3].box, (std::vector<std::uint32_t>{64, 64, 1}));  // O: as Q
  // persistent: one cluster per two compute units at most, in one grid dimension (STORE_O_TMA is 1 in every
  // persistent configuration with room for the O tile)
  set("CLUSTER", 2);
  set("PERSISTENT", 1);
  set("STORE_O_TMA", 1);
  p = plan_launches(k, c, vars);
  EXPECT_EQ(p.launches[0].grid, (Dims{132, 1, 1}));
  p = plan_launches(k, c, with_compute_units(op.variables(spec.shape("fp16-d128-n1024-causal").fields), 33));
  EXPECT_EQ(p.launches[0].grid, (Dims{32, 1, 1}));
  // ITEM_PIPELINE: a second Q buffer of 128 rows x 128 columns x 2 bytes; STORE_O_TMA: an O tile as large
  set("CLUSTER", 1);
  set("OVERLAP", 1);
  set("PINGPONG", 0);
  const auto with_o = plan_launches(k, c, vars).launches[0].dynamic_shared_bytes;
  set("ITEM_PIPELINE", 1);
  EXPECT_EQ(plan_launches(k, c, vars).launches[0].dynamic_shared_bytes, with_o + 2 * 128 * 128);
  set("ITEM_PIPELINE", 0);
  set("PERSISTENT", 0);
  set("STORE_O_TMA", 0);
  EXPECT_EQ(plan_launches(k, c, vars).launches[0].dynamic_shared_bytes, with_o - 2 * 128 * 128);
}

}  // namespace
}  // namespace attn

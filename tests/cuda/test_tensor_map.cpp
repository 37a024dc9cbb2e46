// TMA tensor maps without a GPU: a spec's tensor_maps evaluated for a
// configuration and a shape, described (packed byte strides, element type from
// the dtype) and mapped to cuTensorMapEncodeTiled's arguments; every rule the
// driver enforces fails with a message naming the field.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.hpp"
#include "tuner/backend/cuda/tensor_map.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/plan/tensor_map_arguments.hpp"
#include "tuner/record/result.hpp"

namespace attn {
namespace {

struct Planned {
  LaunchPlan plan;
  nlohmann::json fields;
};

Planned plan_ws(const std::string& shape, const std::string& preset) {
  const Spec spec = load_spec(test::source_dir() / "configs" / "flash_attn_fwd_ws.json");
  const KernelSpec& k = spec.kernel("prefill_ws");
  const Shape& s = spec.shape(shape);
  const Operation& op = find_operation(spec.operation);
  Config config;
  for (const auto& [label, c] : k.presets)
    if (label == preset) config = c;
  return {plan_launches(k, config, op.variables(s.fields)), s.fields};
}

TensorMapDescription simple(TensorElement e = TensorElement::f16) {
  TensorMapDescription d;
  d.name = "tensor_maps[0] (k)";
  d.element = e;
  d.dims = {128, 1000, 6};
  d.strides = TensorMapDescription::packed_strides(d.dims, e);
  d.box = {64, 128, 1};
  d.swizzle_bytes = 128;
  return d;
}

std::string failure(const TensorMapDescription& d, std::uint64_t address = 0x10000, std::uint64_t bytes = 1 << 30) {
  try {
    cu::tensor_map_encoding(d, address, bytes);
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TensorMap, TheWarpSpecializedSpecDescribesKAsAPackedThreeDimensionalTensorWithAPanelBox) {
  // B = 2, Hkv = 4, Nkv = 1500, D = 128, fp16; FA3 preset: BLOCK_N = 128
  const Planned p = plan_ws("fp16-d128-gqa4-mask-alibi-sinks", "FA3");
  ASSERT_EQ(p.plan.tensor_maps.size(), 4u);  // Q, K, V and O (STORE_O_TMA stores through it)
  const TensorMapDescription k = describe_tensor_map(p.plan.tensor_maps[1], 1, p.fields);
  EXPECT_EQ(k.name, "tensor_maps[1] (k)");
  EXPECT_EQ(k.element, TensorElement::f16);
  EXPECT_EQ(k.dims, (std::vector<std::uint64_t>{128, 1500, 8}));
  EXPECT_EQ(k.strides, (std::vector<std::uint64_t>{256, 1500 * 256}));
  EXPECT_EQ(k.box, (std::vector<std::uint32_t>{64, 128, 1}));
  EXPECT_EQ(k.swizzle_bytes, 128);

  const cu::TensorMapEncoding e = cu::tensor_map_encoding(k, 0x7f0000000000, 2ull * 4 * 1500 * 128 * 2);
  EXPECT_EQ(e.data_type, 6u);  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  EXPECT_EQ(e.rank, 3u);
  EXPECT_EQ(e.global_address, 0x7f0000000000u);
  EXPECT_EQ(e.global_dim[0], 128u);
  EXPECT_EQ(e.global_dim[1], 1500u);
  EXPECT_EQ(e.global_dim[2], 8u);
  EXPECT_EQ(e.global_strides[0], 256u);
  EXPECT_EQ(e.global_strides[1], 384000u);
  EXPECT_EQ(e.box_dim[0], 64u);
  EXPECT_EQ(e.box_dim[1], 128u);
  EXPECT_EQ(e.box_dim[2], 1u);
  EXPECT_EQ(e.element_strides[0], 1u);
  EXPECT_EQ(e.element_strides[2], 1u);
  EXPECT_EQ(e.swizzle, 3u);  // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(e.interleave, 0u);
  EXPECT_EQ(e.oob_fill, 0u);  // rows past Nkv arrive as zeros

  // O: B = 2, Hq = 16, Nq = 1000; the query heads' rows, a 64 x 64 box as Q's
  const TensorMapDescription o = describe_tensor_map(p.plan.tensor_maps[3], 3, p.fields);
  EXPECT_EQ(o.name, "tensor_maps[3] (o)");
  EXPECT_EQ(o.dims, (std::vector<std::uint64_t>{128, 1000, 32}));
  EXPECT_EQ(o.strides, (std::vector<std::uint64_t>{256, 1000 * 256}));
  EXPECT_EQ(o.box, (std::vector<std::uint32_t>{64, 64, 1}));
}

TEST(TensorMap, TheBoxFollowsTheConfigurationAndQUsesQueryHeads) {
  // bf16, B = 2, Hq = 32, Nq = 777, D = 64; the ThreeConsumers preset: BLOCK_N = 64
  const Planned p = plan_ws("bf16-d64-gqa8-causal-chunk", "ThreeConsumers");
  const TensorMapDescription q = describe_tensor_map(p.plan.tensor_maps[0], 0, p.fields);
  EXPECT_EQ(q.element, TensorElement::bf16);
  EXPECT_EQ(q.dims, (std::vector<std::uint64_t>{64, 777, 64}));
  EXPECT_EQ(q.strides, (std::vector<std::uint64_t>{128, 777 * 128}));
  EXPECT_EQ(q.box, (std::vector<std::uint32_t>{64, 64, 1}));
  const TensorMapDescription v = describe_tensor_map(p.plan.tensor_maps[2], 2, p.fields);
  EXPECT_EQ(v.dims, (std::vector<std::uint64_t>{64, 3000, 8}));
  EXPECT_EQ(v.box, (std::vector<std::uint32_t>{64, 64, 1}));
  EXPECT_EQ(cu::tensor_map_encoding(v, 0, 8ull * 3000 * 64 * 2).data_type, 9u);  // BFLOAT16
}

TEST(TensorMap, FloatElementsAreFourBytesWide) {
  TensorMapDescription d = simple(TensorElement::f32);
  d.box = {32, 16, 1};
  EXPECT_EQ(d.strides, (std::vector<std::uint64_t>{512, 512000}));
  EXPECT_EQ(cu::tensor_map_encoding(d, 0, 1 << 30).data_type, 7u);
}

TEST(TensorMap, ABoxWiderThanTheSwizzleSpanIsRefusedNamingBox0) {
  TensorMapDescription d = simple();
  d.box[0] = 128;  // 256 bytes
  EXPECT_EQ(failure(d), "tensor_maps[0] (k): box[0] = 128 elements (256 bytes) exceed the 128-byte swizzle span");
  d.swizzle_bytes = 0;
  EXPECT_EQ(failure(d), "no error");
}

TEST(TensorMap, EachDriverRuleNamesItsField) {
  TensorMapDescription d = simple();
  d.box[1] = 300;
  EXPECT_NE(failure(d).find("box[1] = 300; it must be 1 to 256"), std::string::npos) << failure(d);
  d = simple();
  d.strides[0] = 200;
  EXPECT_NE(failure(d).find("strides[0] = 200 bytes; it must be a multiple of 16"), std::string::npos);
  d = simple();
  d.strides[0] = 128;  // less than one row of 128 f16
  EXPECT_NE(failure(d).find("strides[0] = 128 bytes is less than a row"), std::string::npos) << failure(d);
  d = simple();
  d.box = {64, 128};
  EXPECT_NE(failure(d).find("box has 2 entries; it needs one per dim (3)"), std::string::npos);
  d = simple();
  d.dims[1] = 0;
  EXPECT_NE(failure(d).find("dims[1] = 0"), std::string::npos);
  d = simple();
  d.box[0] = 4;  // 8 bytes
  EXPECT_NE(failure(d).find("box[0] = 4 elements (8 bytes) is not a multiple of 16 bytes"), std::string::npos);
  d = simple();
  d.swizzle_bytes = 96;
  EXPECT_NE(failure(d).find("swizzle = 96"), std::string::npos);
  EXPECT_NE(failure(simple(), 0x10008).find("address 0x10008 is not 16-byte aligned"), std::string::npos);
  d = simple();
  d.dims.assign(6, 1);
  EXPECT_NE(failure(d).find("dims has 6 entries"), std::string::npos);
}

TEST(TensorMap, ATensorLargerThanItsBufferIsRefused) {
  const TensorMapDescription d = simple();  // 128 x 1000 x 6 f16 = 1,536,000 bytes
  EXPECT_EQ(failure(d, 0, 1536000), "no error");
  EXPECT_EQ(failure(d, 0, 1535999), "tensor_maps[0] (k): the tensor spans 1536000 bytes; its buffer holds 1535999");
}

TEST(TensorMap, AShapeWhoseDtypeIsNoElementTypeAsksForAnElement) {
  TensorMapPlan t{"q", "", {128, 10, 1}, {64, 10, 1}, 128};
  try {
    describe_tensor_map(t, 0, nlohmann::json{{"dtype", "f32_f16"}});
    FAIL() << "no error";
  } catch (const Outcome& o) {
    EXPECT_NE(o.reason.find("tensor_maps[0] (q): the shape's dtype 'f32_f16' is not an element type"), std::string::npos)
        << o.reason;
  }
  t.element = "f32";
  EXPECT_EQ(describe_tensor_map(t, 0, nlohmann::json{{"dtype", "f32_f16"}}).element, TensorElement::f32);
}

}  // namespace
}  // namespace attn

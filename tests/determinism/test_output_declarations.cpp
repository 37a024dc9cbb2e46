// The determinism checks know an operation's outputs only through what the
// operation declares: element type, coordinates and where each sequence lies,
// for attention's packed layout and for another operation alike.
#include <gtest/gtest.h>

#include "tests/support/test_support.hpp"
#include "tuner/check/output_layout.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

// A problem whose one output is half-precision with a size a multiple of 4
// bytes (a size-based guess would say f32) and sequences of uneven sizes.
class DeclaredProblem final : public Problem {
 public:
  DeclaredProblem() {
    buffers_ = {{"x", false, std::vector<std::byte>(16), {}}, {"y", true, std::vector<std::byte>(24), {}}};
  }
  std::vector<std::byte> params_bytes() const override { return {}; }
  std::vector<OutputDeclaration> outputs() const override { return {{"y", ElementType::F16, {{"t", 12}}, {0, 2, 3, 12}}}; }
  VerifyReport verify(const std::vector<std::vector<std::byte>>&, const Tolerance&) const override { return {}; }
  double flops() const override { return 0; }
  double bytes() const override { return 0; }
};

TEST(OutputDeclarations, ChecksTakeTypeAndSequencesFromTheDeclaration) {
  const auto layouts = output_layouts(DeclaredProblem{});
  ASSERT_EQ(layouts.size(), 1u);
  EXPECT_EQ(layouts[0].buffer, "y");
  EXPECT_EQ(layouts[0].type, ElementType::F16);
  EXPECT_EQ(layouts[0].sequence_offsets, (std::vector<std::size_t>{0, 2, 3, 12}));
  EXPECT_EQ(layouts[0].element_name(5), "y[t=5]");
}

TEST(OutputDeclarations, ANonAttentionOperationIsSlicedByItsDeclaration) {
  const Spec spec = load_spec(test::source_dir() / "configs" / "deformable_attn_small.json");
  nlohmann::json fields = spec.shapes.front().fields;
  fields["B"] = 3;
  const auto problem = find_operation("deformable_attention").make_problem(fields, 1);
  const auto layouts = output_layouts(*problem);
  ASSERT_EQ(layouts.size(), 1u);
  const std::size_t elements = problem->buffers().back().data.size() / 4;
  EXPECT_EQ(layouts[0].type, ElementType::F32);
  EXPECT_EQ(layouts[0].sequence_offsets, (std::vector<std::size_t>{0, elements / 3, 2 * elements / 3, elements}));
  EXPECT_EQ(layouts[0].element_name(elements / 3).rfind("out[b=1,q=0,", 0), 0u) << layouts[0].element_name(elements / 3);
}

TEST(OutputDeclarations, PackedAttentionSequencesStartAtTheirTokens) {
  const Spec spec = load_spec(test::data("layouts.json"));
  const auto problem = find_operation("attention").make_problem(spec.shape("thd").fields, 1);
  const auto layouts = output_layouts(*problem);
  ASSERT_EQ(layouts.size(), 1u);
  // seqlens_q 1, 17, 30, 5 tokens of Hq = 4 heads of D = 32.
  EXPECT_EQ(layouts[0].sequence_offsets, (std::vector<std::size_t>{0, 128, 2304, 6144, 6784}));
  EXPECT_EQ(layouts[0].element_name(2304 + 1), "o[t=18,h=0,d=1]");
}

TEST(OutputDeclarations, AnOperationWithoutADecodeCacheHasNoGrowthCheck) {
  const Spec spec = load_spec(test::source_dir() / "configs" / "deformable_attn_small.json");
  const CacheGrowthPlan plan = find_operation("deformable_attention").cache_growth(spec.shapes.front().fields, 4);
  EXPECT_NE(plan.not_applicable.find("no decode cache"), std::string::npos) << plan.not_applicable;
}

}  // namespace
}  // namespace attn

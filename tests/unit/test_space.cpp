// The parameter space, pruned by constraints, against a golden list.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

std::string enumerate_all(const Spec& spec) {
  std::string out;
  const Operation& op = find_operation(spec.operation);
  for (const auto& shape : spec.shapes) {
    const Space space = enumerate_space(spec.kernels[0], op.variables(shape.fields));
    out += fmt::format("# {}: {} in the product, {} pruned\n", shape.name, space.product_size, space.pruned);
    for (const auto& c : space.configs) {
      out += fmt::format("{} {}", shape.name, config_key(c.config));
      if (!c.preset.empty()) out += fmt::format(" preset={}", c.preset);
      if (!c.skip_reason.empty()) out += fmt::format(" skipped: {}", c.skip_reason);
      out += "\n";
    }
  }
  return out;
}

TEST(Space, MatchesGoldenList) {
  const Spec spec = load_spec(test::data("space.json"));
  EXPECT_EQ(enumerate_all(spec), read_text_file(test::data("space.golden.txt")));
}

TEST(Space, FirstParameterVariesSlowest) {
  const Spec spec = load_spec(test::data("space.json"));
  const Space space = enumerate_space(spec.kernels[0], find_operation("attention").variables(spec.shapes[0].fields));
  ASSERT_GE(space.configs.size(), 2u);
  EXPECT_EQ(config_key(space.configs[0].config), "BLOCK_M=16,BLOCK_N=16,DV_TILE=32");
  EXPECT_EQ(config_key(space.configs[1].config), "BLOCK_M=16,BLOCK_N=16,DV_TILE=64");
}

}  // namespace
}  // namespace attn

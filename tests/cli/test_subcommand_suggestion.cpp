// A mistyped subcommand is a usage error that names the closest one.
#include <gtest/gtest.h>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

TEST(SubcommandSuggestion, AMistypedSubcommandSuggestsTheClosest) {
  const auto r = test::run_cli({"swep", "configs/flash_attn_f32_f16_small.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'swep': did you mean 'sweep'?"), std::string::npos) << r.err;
}

TEST(SubcommandSuggestion, AWordFarFromEveryCommandGetsNoGuess) {
  const auto r = test::run_cli({"banana"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'banana'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

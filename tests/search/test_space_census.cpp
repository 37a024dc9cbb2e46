// Counting a space without running it: the census against brute-force counts,
// and `attn-tune space` on a spec whose constraints depend on the shape.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/search/search_fixture.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/search/space_census.hpp"

namespace attn {
namespace {

// test::constrained_kernel() by brute force: A * B <= 24, then C < 4 || D == 0.
struct BruteForce {
  long long valid = 0, by_first = 0, by_second = 0;
};
BruteForce brute_force_synthetic() {
  BruteForce n;
  for (int a = 1; a <= 8; ++a)
    for (int b = 1; b <= 8; ++b)
      for (int c = 0; c <= 5; ++c)
        for (int d = 0; d <= 1; ++d) {
          if (a * b > 24) ++n.by_first;
          else if (!(c < 4 || d == 0)) ++n.by_second;
          else ++n.valid;
        }
  return n;
}

TEST(SpaceCensus, CountsTheValidConfigurationsAndTheFirstConstraintEachOtherBreaks) {
  const KernelSpec k = test::constrained_kernel();
  const BruteForce expected = brute_force_synthetic();
  const SpaceCensus census = attn::census(ConstrainedSpace(k, {}));
  EXPECT_TRUE(census.exact);
  EXPECT_EQ(census.product, 768);
  EXPECT_EQ(census.examined, 768);
  EXPECT_EQ(census.valid, expected.valid);
  EXPECT_EQ(census.valid, test::kValidConfigs);
  EXPECT_EQ(census.excluded_by, (std::vector<long long>{expected.by_first, expected.by_second}));
}

TEST(SpaceCensus, AProductBeyondTheLimitIsEstimatedFromASampleCloseToTheTrueCounts) {
  const KernelSpec k = test::constrained_kernel();
  const SpaceCensus census = attn::census(ConstrainedSpace(k, {}), {.exact_up_to = 100, .samples = 20000, .seed = 3});
  EXPECT_FALSE(census.exact);
  EXPECT_EQ(census.examined, 20000);
  EXPECT_EQ(census.product, 768);
  // Within a few percent of the product of the exact counts with 20,000 samples (a standard error of about 3).
  const BruteForce expected = brute_force_synthetic();
  EXPECT_NEAR(static_cast<double>(census.valid), static_cast<double>(expected.valid), 20.0);
  EXPECT_NEAR(static_cast<double>(census.excluded_by[0]), static_cast<double>(expected.by_first), 20.0);
  EXPECT_NEAR(static_cast<double>(census.excluded_by[1]), static_cast<double>(expected.by_second), 20.0);
  // The same seed, the same estimate.
  EXPECT_EQ(attn::census(ConstrainedSpace(k, {}), {.exact_up_to = 100, .samples = 20000, .seed = 3}).valid, census.valid);
}

// tests/data/census_space.json by brute force: X in 1..12, Y in {1,2,4,8,16}, Z in 0..3;
// X * Y <= Nq, then Z < 3 || X % 2 == 0, then Y * Z <= 32.
nlohmann::json brute_force(long long nq) {
  long long valid = 0;
  std::vector<long long> excluded(3, 0);
  for (long long x = 1; x <= 12; ++x)
    for (long long y : {1, 2, 4, 8, 16})
      for (long long z = 0; z <= 3; ++z) {
        if (x * y > nq) ++excluded[0];
        else if (!(z < 3 || x % 2 == 0)) ++excluded[1];
        else if (y * z > 32) ++excluded[2];
        else ++valid;
      }
  return {{"valid", valid}, {"excluded", excluded}};
}

TEST(SpaceCommand, PrintsEachKernelAndShapesProductValidCountAndExclusionsAsBruteForceCountsThem) {
  const auto r = test::run_cli({"space", "tests/data/census_space.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("pairs").size(), 2u);
  for (const auto& pair : j.at("pairs")) {
    const auto expected = brute_force(pair.at("shape") == "short" ? 16 : 64);
    EXPECT_EQ(pair.at("kernel"), "naive");
    EXPECT_EQ(pair.at("product"), 12 * 5 * 4);
    EXPECT_EQ(pair.at("exact"), true);
    EXPECT_EQ(pair.at("valid"), expected.at("valid")) << pair.at("shape");
    ASSERT_EQ(pair.at("excluded_first_by").size(), 3u);
    EXPECT_EQ(pair.at("excluded_first_by")[0].at("constraint"), "X * Y <= Nq");
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_EQ(pair.at("excluded_first_by")[i].at("count"), expected.at("excluded")[i]) << pair.at("shape") << " " << i;
  }
  // The table says the same for the shape asked for.
  const auto table = test::run_cli({"space", "tests/data/census_space.json", "-s", "short"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(fmt::format("naive on short (opencl): 240 in the product, {} valid",
                                       brute_force(16).at("valid").get<long long>())),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("on long"), std::string::npos) << table.out;
}

TEST(SpaceCommand, AHundredMillionPointProductIsEstimatedFromASampleAtOnce) {
  const auto r = test::run_cli({"space", "tests/data/huge_space.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pair = nlohmann::json::parse(r.out).at("pairs").at(0);
  EXPECT_EQ(pair.at("product"), 100'000'000);
  EXPECT_EQ(pair.at("exact"), false);
  EXPECT_EQ(pair.at("valid"), 100'000'000);  // WG <= Nq holds everywhere on its one shape
}

// The space the strategy benchmark needs recorded (docs/search.md): at least 2,000 configurations on each anchor.
TEST(SpaceCommand, TheLargeDecodeSpecHoldsAtLeast2000ValidConfigurationsOnEachOfItsFourAnchorShapes) {
  const auto r = test::run_cli({"space", "configs/flash_attn_decode_large.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pairs = nlohmann::json::parse(r.out).at("pairs");
  std::set<std::string> shapes;
  for (const auto& pair : pairs) {
    EXPECT_EQ(pair.at("exact"), true);
    EXPECT_GE(pair.at("valid").get<long long>(), 2000) << pair.at("kernel") << " on " << pair.at("shape");
    shapes.insert(pair.at("shape").get<std::string>());
  }
  EXPECT_EQ(shapes, (std::set<std::string>{"fp16-h32-kv32-n4096", "fp16-h32-kv32-n32768", "fp16-h32-kv8-n4096",
                                           "fp16-h32-kv8-n32768"}));
}

TEST(SpaceCommand, AnUnknownKernelIsAUsageError) {
  const auto r = test::run_cli({"space", "tests/data/census_space.json", "-k", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

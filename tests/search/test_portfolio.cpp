// `portfolio`: the memetic and local-search arms in slices over one record of
// proposed configurations; what every strategy owes (deterministic by seed,
// never a configuration twice nor an invalid one, inside its budget) and the
// slice rule that shares the evaluations between the arms.
#include <gtest/gtest.h>

#include <set>

#include "tests/search/search_fixture.hpp"
#include "tuner/search/portfolio.hpp"
#include "tuner/search/search_loop.hpp"

namespace attn {
namespace {

std::vector<std::string> keys(const SearchRun& run) {
  std::vector<std::string> out;
  for (const auto& o : run.evaluations) out.push_back(config_key(o.config));
  return out;
}

TEST(Portfolio, TheSameSeedProposesTheSameConfigurations) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  auto run = [&](std::uint64_t seed) {
    PortfolioSearch s(space, seed);
    return keys(run_search(s, {300, 0}, test::synthetic_cost));
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(Portfolio, NeverProposesAConfigurationTwiceNorAnInvalidOneAndStaysInItsBudget) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  PortfolioSearch s(space, 3);
  const SearchRun run = run_search(s, {400, 0}, test::synthetic_cost);
  EXPECT_EQ(run.evaluations.size(), 400u);
  // Both arms had turns.
  EXPECT_GT(s.proposed_by(0), 0);
  EXPECT_GT(s.proposed_by(1), 0);
  std::set<std::string> seen;
  for (const auto& o : run.evaluations) {
    EXPECT_TRUE(space.valid(o.config)) << config_key(o.config);
    EXPECT_TRUE(seen.insert(config_key(o.config)).second) << "proposed twice: " << config_key(o.config);
  }
}

TEST(Portfolio, CoversTheWholeSpaceWithoutRepeatingThenStops) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  PortfolioSearch s(space, 5);
  const SearchRun run = run_search(s, {0, 0}, test::synthetic_cost);
  EXPECT_EQ(static_cast<long long>(run.evaluations.size()), test::kValidConfigs);
  EXPECT_EQ(run.stop, SearchStop::exhausted);
}

TEST(Portfolio, FindsTheOptimumOfASmoothSpaceWithinAQuarterOfIt) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    PortfolioSearch s(space, seed);
    run_search(s, {110, 0}, test::synthetic_cost, [&] { return !s.history().empty() && s.history().back().cost == 1.0; });
    EXPECT_EQ(s.history().back().cost, 1.0) << "seed " << seed;
  }
}

TEST(SliceRule, ArmsTakeTurnsOfASliceEach) {
  SliceRule rule(2, 3, true);
  std::vector<std::size_t> turns;
  for (int i = 0; i < 9; ++i) {
    turns.push_back(rule.current());
    rule.told(false);
  }
  EXPECT_EQ(turns, (std::vector<std::size_t>{0, 0, 0, 1, 1, 1, 0, 0, 0}));
}

TEST(SliceRule, AnArmWhoseSliceFoundANewBestKeepsTheTurn) {
  SliceRule rule(2, 3, true);
  rule.told(false);
  rule.told(true);
  rule.told(false);
  EXPECT_EQ(rule.current(), 0u);  // improved: another slice
  for (int i = 0; i < 3; ++i) rule.told(false);
  EXPECT_EQ(rule.current(), 1u);  // no progress: the other arm's turn
}

TEST(SliceRule, WithoutKeepingOnProgressTurnsAlternate) {
  SliceRule rule(2, 2, false);
  rule.told(true);
  rule.told(true);
  EXPECT_EQ(rule.current(), 1u);
}

TEST(SliceRule, AnArmWithNothingToProposeGivesUpItsTurnAtOnce) {
  SliceRule rule(2, 100, true);
  rule.told(true);
  rule.skip();
  EXPECT_EQ(rule.current(), 1u);
  rule.skip();
  EXPECT_EQ(rule.current(), 0u);
}

}  // namespace
}  // namespace attn

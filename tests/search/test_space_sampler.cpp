// Sampling a constrained space without enumerating it.
#include <gtest/gtest.h>

#include <set>

#include "tests/search/search_fixture.hpp"
#include "tuner/search/space_sampler.hpp"

namespace attn {
namespace {

TEST(SpaceSampler, IndexesTheProductWithTheFirstParameterSlowest) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  EXPECT_EQ(space.product_size(), 768);
  EXPECT_EQ(config_key(space.at(0)), "A=1,B=1,C=0,D=0");
  EXPECT_EQ(config_key(space.at(1)), "A=1,B=1,C=0,D=1");
  EXPECT_EQ(config_key(space.at(767)), "A=8,B=8,C=5,D=1");
}

TEST(SpaceSampler, SamplesOnlyValidUnseenConfigurationsUntilEveryOneIsSeen) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  UniformStream rng(7);
  std::set<std::string> seen;
  while (auto c = space.sample_unseen(rng, seen)) {
    ASSERT_TRUE(space.valid(*c)) << config_key(*c);
    ASSERT_TRUE(seen.insert(config_key(*c)).second) << "drawn twice: " << config_key(*c);
  }
  EXPECT_EQ(static_cast<long long>(seen.size()), test::kValidConfigs);
}

TEST(SpaceSampler, ConstraintsSeeTheShapeVariables) {
  KernelSpec k = test::constrained_kernel();
  k.constraints.emplace_back("A <= Nq", std::vector<std::string>{"A", "B", "C", "D", "Nq"});
  const ConstrainedSpace space(k, {{"Nq", 2}});
  UniformStream rng(1);
  std::set<std::string> seen;
  while (auto c = space.sample_unseen(rng, seen)) {
    EXPECT_LE((*c)[0].second, 2);
    seen.insert(config_key(*c));
  }
  EXPECT_FALSE(seen.empty());
}

TEST(SpaceSampler, NeighboursDifferInOneParameterAndKeepTheConstraints) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  const Config centre{{"A", 4}, {"B", 6}, {"C", 3}, {"D", 1}};
  const auto neighbours = space.neighbours(centre);
  ASSERT_FALSE(neighbours.empty());
  for (const auto& n : neighbours) {
    int differing = 0;
    for (std::size_t p = 0; p < n.size(); ++p) differing += n[p].second != centre[p].second;
    EXPECT_EQ(differing, 1) << config_key(n);
    EXPECT_TRUE(space.valid(n)) << config_key(n);
  }
  // A=5 would make A * B = 30 and C=4 with D=1 breaks the second constraint: neither is proposed.
  for (const auto& n : neighbours) {
    EXPECT_NE(config_key(n), "A=5,B=6,C=3,D=1");
    EXPECT_NE(config_key(n), "A=4,B=6,C=4,D=1");
  }
}

TEST(SpaceSampler, ARecordedSpaceIsExactlyItsRecordedConfigurations) {
  const std::vector<Config> recorded{{{"X", 1}, {"Y", 8}}, {{"X", 2}, {"Y", 4}}, {{"X", 4}, {"Y", 2}}};
  const RecordedSpace space(RecordedSpace::params_of({"X", "Y"}, recorded), recorded);
  EXPECT_EQ(space.product_size(), 9);
  EXPECT_TRUE(space.valid(recorded[1]));
  EXPECT_FALSE(space.valid({{"X", 1}, {"Y", 4}}));
  UniformStream rng(3);
  std::set<std::string> seen;
  while (auto c = space.sample_unseen(rng, seen)) seen.insert(config_key(*c));
  EXPECT_EQ(seen, (std::set<std::string>{"X=1,Y=8", "X=2,Y=4", "X=4,Y=2"}));
}

}  // namespace
}  // namespace attn

// Every strategy: constraints and budgets honoured, deterministic by seed,
// resumable exactly by telling it the earlier results again.
#include <gtest/gtest.h>

#include <set>

#include "tests/search/search_fixture.hpp"
#include "tuner/core/error.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/space_sampler.hpp"

namespace attn {
namespace {

class EveryStrategy : public ::testing::TestWithParam<std::string> {
 protected:
  KernelSpec kernel_ = test::constrained_kernel();
  ConstrainedSpace space_{kernel_, {}};

  std::vector<std::string> proposals(std::uint64_t seed, long long budget) {
    auto s = make_strategy(GetParam(), space_, seed);
    std::vector<std::string> keys;
    for (const auto& o : run_search(*s, {budget, 0}, test::synthetic_cost).evaluations) keys.push_back(config_key(o.config));
    return keys;
  }
};

TEST_P(EveryStrategy, ProposesEveryValidConfigurationOnceAndNothingInvalid) {
  auto s = make_strategy(GetParam(), space_, 5);
  const SearchRun run = run_search(*s, {}, test::synthetic_cost);
  std::set<std::string> keys;
  for (const auto& o : run.evaluations) {
    EXPECT_TRUE(space_.valid(o.config)) << config_key(o.config);
    EXPECT_TRUE(keys.insert(config_key(o.config)).second) << "proposed twice: " << config_key(o.config);
  }
  EXPECT_EQ(static_cast<long long>(keys.size()), test::kValidConfigs);
  EXPECT_EQ(run.stop, SearchStop::exhausted);
}

TEST_P(EveryStrategy, StopsAtTheEvaluationBudget) {
  auto s = make_strategy(GetParam(), space_, 5);
  const SearchRun run = run_search(*s, {25, 0}, test::synthetic_cost);
  EXPECT_EQ(run.evaluations.size(), 25u);
  EXPECT_EQ(run.stop, SearchStop::evaluations);
}

TEST_P(EveryStrategy, StopsAtTheTimeBudget) {
  auto s = make_strategy(GetParam(), space_, 5);
  const SearchRun run = run_search(*s, {0, 1e-9}, test::synthetic_cost);
  EXPECT_EQ(run.stop, SearchStop::time);
  EXPECT_LE(run.evaluations.size(), 1u);
}

TEST_P(EveryStrategy, TheSameSeedProposesTheSameConfigurations) {
  EXPECT_EQ(proposals(11, 60), proposals(11, 60));
  if (GetParam() != "exhaustive") {
    EXPECT_NE(proposals(11, 60), proposals(12, 60));
  }
}

TEST_P(EveryStrategy, ResumingByTellingTheEarlierResultsContinuesExactly) {
  const auto whole = proposals(3, 80);
  // The first 30 results come from a "journal"; the resumed strategy must propose
  // them again in the same order and then continue as the uninterrupted run did.
  auto first = make_strategy(GetParam(), space_, 3);
  const auto journaled = run_search(*first, {30, 0}, test::synthetic_cost).evaluations;
  auto resumed = make_strategy(GetParam(), space_, 3);
  std::size_t replayed = 0;
  std::vector<std::string> keys;
  const auto run = run_search(*resumed, {80, 0}, [&](const Config& c) -> Cost {
    if (replayed < journaled.size()) {
      EXPECT_EQ(config_key(c), config_key(journaled[replayed].config));
      return journaled[replayed++].cost;
    }
    return test::synthetic_cost(c);
  });
  for (const auto& o : run.evaluations) keys.push_back(config_key(o.config));
  EXPECT_EQ(replayed, 30u);
  EXPECT_EQ(keys, whole);
}

INSTANTIATE_TEST_SUITE_P(Search, EveryStrategy, ::testing::ValuesIn(strategy_names()),
                         [](const auto& info) { return info.param; });

// Evaluations until the optimum is found, summed over seeds.
long long evaluations_to_optimum(const std::string& strategy, const SpaceSampler& space) {
  long long total = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto s = make_strategy(strategy, space, seed);
    run_search(*s, {}, test::synthetic_cost, [&] { return !s->history().empty() && s->history().back().cost == 1.0; });
    total += static_cast<long long>(s->history().size());
  }
  return total;
}

TEST(Strategies, GuidedStrategiesNeedFewerEvaluationsThanRandomOnASmoothSpace) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  const long long random = evaluations_to_optimum("random", space);
  for (const std::string name : {"annealing", "genetic", "surrogate", "hybrid", "portfolio"})
    EXPECT_LT(evaluations_to_optimum(name, space), random) << name;
}

TEST(Strategies, AnUnknownNameIsAUsageErrorListingTheKnownOnes) {
  const KernelSpec k = test::constrained_kernel();
  const ConstrainedSpace space(k, {});
  try {
    make_strategy("hillclimb", space, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("annealing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attn

// The default strategy, `hybrid`: what its design claims (a local search
// around each new best, restarts on stagnation), and what every strategy owes
// (deterministic by seed, never a configuration twice nor an invalid one) on
// spaces larger than the shared fixture's.
#include <gtest/gtest.h>

#include <set>

#include "tests/search/search_fixture.hpp"
#include "tuner/search/hybrid.hpp"
#include "tuner/search/search_loop.hpp"

namespace attn {
namespace {

// A, B, C, D in 0..15 (65,536 in the product); A + B + C + D <= 40 keeps most of it.
KernelSpec basin_kernel() {
  KernelSpec k;
  k.name = "basin";
  std::vector<ParamValue> values;
  for (int v = 0; v < 16; ++v) values.emplace_back(v);
  k.params = {{"A", values}, {"B", values}, {"C", values}, {"D", values}};
  k.constraints.emplace_back("A + B + C + D <= 40", std::vector<std::string>{"A", "B", "C", "D"});
  return k;
}

// One clear basin: its minimum 1.0 at A=11, B=3, C=7, D=13, every step away 2-9% slower.
Cost basin_cost(const Config& c) {
  const long long a = c[0].second.integer(), b = c[1].second.integer();
  const long long cc = c[2].second.integer(), d = c[3].second.integer();
  return 1.0 + 0.02 * std::abs(a - 11) + 0.05 * std::abs(b - 3) + 0.03 * std::abs(cc - 7) + 0.09 * std::abs(d - 13);
}

std::vector<std::string> keys(const SearchRun& run) {
  std::vector<std::string> out;
  for (const auto& o : run.evaluations) out.push_back(config_key(o.config));
  return out;
}

TEST(Hybrid, IsTheDefaultStrategy) { EXPECT_STREQ(kDefaultSearchStrategy, "hybrid"); }

TEST(Hybrid, TheSameSeedProposesTheSameConfigurationsOnALargeSpace) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  auto run = [&](std::uint64_t seed) {
    HybridSearch s(space, seed);
    return keys(run_search(s, {400, 0}, basin_cost));
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(Hybrid, NeverProposesAConfigurationTwiceNorAnInvalidOneThroughRestarts) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  // A flat cost: the best never improves, so the search restarts again and again.
  HybridSearch s(space, 3);
  const SearchRun run = run_search(s, {3000, 0}, [](const Config&) -> Cost { return 1.0; });
  EXPECT_EQ(run.evaluations.size(), 3000u);
  EXPECT_GE(s.restarts(), 3);
  std::set<std::string> seen;
  for (const auto& o : run.evaluations) {
    EXPECT_TRUE(space.valid(o.config)) << config_key(o.config);
    EXPECT_TRUE(seen.insert(config_key(o.config)).second) << "proposed twice: " << config_key(o.config);
  }
}

TEST(Hybrid, ReachesTheOptimumOfAClearBasinWithinAFewPercentOfTheSpace) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    HybridSearch s(space, seed);
    // 250 evaluations: 0.4% of the product. Random search finds the one optimum in 1 of 10 seeds at best.
    const SearchRun run =
        run_search(s, {250, 0}, basin_cost, [&] { return !s.history().empty() && s.history().back().cost == 1.0; });
    ASSERT_FALSE(s.history().empty());
    EXPECT_EQ(s.history().back().cost, 1.0) << "seed " << seed << ": not found in " << run.evaluations.size();
  }
}

TEST(Hybrid, AfterANewBestItTriesTheBestsValueStepsFirst) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  HybridSearch s(space, 5);
  const SearchRun run = run_search(s, {200, 0}, basin_cost);
  const auto& params = space.params();
  int checked = 0;
  std::optional<Observation> best;
  for (std::size_t i = 0; i + 1 < run.evaluations.size(); ++i) {
    const Observation& o = run.evaluations[i];
    const bool improved = !best || better(o.cost, best->cost);
    if (improved) best = o;
    if (!improved || i + 1 < s.knobs().initial) continue;
    // Only where the new best still has a value step never proposed.
    std::set<std::string> proposed;
    for (std::size_t j = 0; j <= i; ++j) proposed.insert(config_key(run.evaluations[j].config));
    bool open_step = false;
    for (const Config& n : space.neighbours(o.config)) {
      const auto pn = *space.positions(n), po = *space.positions(o.config);
      for (std::size_t p = 0; p < params.size(); ++p)
        if (pn[p] != po[p] && (pn[p] + 1 == po[p] || po[p] + 1 == pn[p]) && !proposed.contains(config_key(n)))
          open_step = true;
    }
    if (!open_step) continue;
    // The next proposal differs from the new best in one ordered parameter, by one value.
    const auto a = *space.positions(o.config), b = *space.positions(run.evaluations[i + 1].config);
    int changed = 0;
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (a[p] == b[p]) continue;
      ++changed;
      EXPECT_EQ(a[p] > b[p] ? a[p] - b[p] : b[p] - a[p], 1u) << "evaluation " << i + 2;
    }
    EXPECT_EQ(changed, 1) << "evaluation " << i + 2;
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

TEST(Hybrid, RestartsOnlyAfterItsStallWithoutImprovement) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  HybridSearch s(space, 2);
  const long long stall = s.knobs().stall;
  const Evaluate flat = [](const Config&) -> Cost { return 1.0; };
  // The first result is the epoch's best; STALL more without a better one, and the next proposal restarts.
  run_search(s, {stall + 1, 0}, flat);
  EXPECT_EQ(s.restarts(), 0);
  run_search(s, {1, 0}, flat);
  EXPECT_EQ(s.restarts(), 1);
}

TEST(Hybrid, KeepsImprovingWithoutRestartingOnAClearBasin) {
  const KernelSpec k = basin_kernel();
  const ConstrainedSpace space(k, {});
  HybridSearch s(space, 4);
  run_search(s, {150, 0}, basin_cost, [&] { return !s.history().empty() && s.history().back().cost == 1.0; });
  EXPECT_EQ(s.history().back().cost, 1.0);
  EXPECT_EQ(s.restarts(), 0);
}

}  // namespace
}  // namespace attn

// The search loop's time budget counts the strategy's own time, on a clock the test advances (no timing).
#include <gtest/gtest.h>

#include "tests/search/search_fixture.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/search/space_sampler.hpp"

namespace attn {
namespace {

// A strategy that spends one (fake) second on each proposal.
class SlowStrategy final : public Strategy {
 public:
  SlowStrategy(const SpaceSampler& space, double& now) : Strategy(space, 1), now_(now) {}

 private:
  std::optional<Config> next() override {
    now_ += 1.0;
    return random_unproposed();
  }
  double& now_;
};

TEST(SearchLoop, TheTimeBudgetCountsTheStrategysOwnTime) {
  const KernelSpec kernel = test::constrained_kernel();
  const ConstrainedSpace space(kernel, {});
  double now = 0;
  SlowStrategy strategy(space, now);
  // Evaluations take no time: only the strategy spends the 3.5 s budget, so the fourth proposal (at 4 s)
  // comes after it is spent and is not evaluated.
  const SearchRun run = run_search(strategy, {0, 3.5}, test::synthetic_cost, {}, [&] { return now; });
  EXPECT_EQ(run.stop, SearchStop::time);
  EXPECT_EQ(run.evaluations.size(), 3u);
  ASSERT_EQ(run.strategy_seconds.size(), 3u);
  for (double s : run.strategy_seconds) EXPECT_DOUBLE_EQ(s, 1.0);
}

TEST(SearchLoop, RecordsTheStrategysTimeForEveryEvaluation) {
  const KernelSpec kernel = test::constrained_kernel();
  const ConstrainedSpace space(kernel, {});
  auto strategy = make_strategy("random", space, 3);
  const SearchRun run = run_search(*strategy, {12, 0}, test::synthetic_cost);
  EXPECT_EQ(run.strategy_seconds.size(), run.evaluations.size());
  for (double s : run.strategy_seconds) EXPECT_GE(s, 0.0);
}

}  // namespace
}  // namespace attn

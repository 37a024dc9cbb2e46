// The space is walked lazily: a cursor yields configurations in the golden
// order without materialising the product, stays interruptible on a space the
// constraints prune almost entirely, and counts or estimates what it holds.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/support/test_support.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/run_plan.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

struct Loaded {
  Spec spec;
  Bindings vars;
};

Loaded load(const std::string& name) {
  Spec spec = load_spec(test::data(name));
  const Bindings vars = find_operation(spec.operation).variables(spec.shapes.at(0).fields);
  return {std::move(spec), vars};
}

void add_constraint(KernelSpec& kernel, const std::string& text) {
  std::vector<std::string> names = {"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "WG", "FAULT", "REPEAT"};
  kernel.constraints.emplace_back(text, names);
}

TEST(SpaceCursor, GivesTheFirstConfigurationOfAHundredMillionAtOnce) {
  const Loaded l = load("huge_space.json");
  const auto start = std::chrono::steady_clock::now();
  SpaceCursor cursor(l.spec.kernels[0], l.vars);
  PlannedConfig first, second;
  ASSERT_TRUE(cursor.next(first));
  ASSERT_TRUE(cursor.next(second));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.5);
  EXPECT_EQ(cursor.product_size(), 100000000);
  EXPECT_EQ(config_key(first.config), "WG=16,FAULT=0,REPEAT=1,P1=0,P2=0,P3=0,P4=0,P5=0,P6=0,P7=0,P8=0");
  EXPECT_EQ(config_key(second.config), "WG=16,FAULT=0,REPEAT=1,P1=0,P2=0,P3=0,P4=0,P5=0,P6=0,P7=0,P8=1");
  EXPECT_EQ(cursor.examined(), 2);
}

TEST(SpaceCursor, AnswersBusyWhileTheConstraintsPruneEveryPointOfABudget) {
  Loaded l = load("huge_space.json");
  add_constraint(l.spec.kernels[0], "P7 == 9");  // the first 90 points are pruned
  SpaceCursor cursor(l.spec.kernels[0], l.vars);
  PlannedConfig c;
  int busy = 0;
  SpaceCursor::Step step;
  while ((step = cursor.advance(c, 10)) == SpaceCursor::Step::busy) ++busy;
  EXPECT_EQ(busy, 9);
  ASSERT_EQ(step, SpaceCursor::Step::config);
  EXPECT_EQ(config_key(c.config), "WG=16,FAULT=0,REPEAT=1,P1=0,P2=0,P3=0,P4=0,P5=0,P6=0,P7=9,P8=0");
  EXPECT_EQ(cursor.pruned(), 90);
  EXPECT_EQ(cursor.first_pruned_reason(), "constraint `P7 == 9` is false");
}

TEST(SpaceCursor, CountsSmallSpacesExactlyAndEstimatesLargeOnes) {
  const Loaded space = load("space.json");
  const SpaceCount small = count_space(space.spec.kernels[0], space.vars);
  EXPECT_TRUE(small.exact);
  long long runnable = 0;
  for (const auto& c : enumerate_space(space.spec.kernels[0], space.vars).configs) runnable += c.skip_reason.empty();
  EXPECT_EQ(small.kept, runnable);

  Loaded huge = load("huge_space.json");
  add_constraint(huge.spec.kernels[0], "P1 + P2 < 10");  // keeps 55 of every 100
  const SpaceCount large = count_space(huge.spec.kernels[0], huge.vars);
  EXPECT_FALSE(large.exact);
  EXPECT_EQ(large.product, 100000000);
  EXPECT_NEAR(static_cast<double>(large.kept), 55e6, 5e6);
}

TEST(RunPlan, NamesTheFirstConstraintThatEmptiedAPairAndTheKernelsOfAnotherBackend) {
  Spec spec = load_spec(test::data("nothing_runs.json"));
  RunPlan plan(spec, "opencl");
  PlannedJob job;
  EXPECT_FALSE(plan.next(job));
  ASSERT_EQ(plan.exclusions().size(), 1u);
  EXPECT_EQ(plan.exclusions()[0].kernel, "naive");
  EXPECT_EQ(plan.exclusions()[0].shape, "d96");
  EXPECT_EQ(plan.exclusions()[0].reason, "constraint `D == 64 || D == 128` is false");
  EXPECT_EQ(plan.kernels_not_on_backend(), std::vector<std::string>{"cuda_only"});
}

TEST(RunPlan, IsShapeMajorInTheSpaceOrder) {
  const Spec spec = load_spec(test::data("testbed.json"));
  RunPlan plan(spec, "opencl");
  std::vector<std::string> order;
  for (PlannedJob job; plan.next(job);) order.push_back(job.job.shape + " " + config_key(job.job.config));
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front(), "tiny WG=8,FAULT=0,REPEAT=1");
  const auto first_small =
      std::find_if(order.begin(), order.end(), [](const std::string& s) { return s.rfind("small", 0) == 0; });
  EXPECT_TRUE(std::all_of(first_small, order.end(), [](const std::string& s) { return s.rfind("small", 0) == 0; }));
  const PlanSize size = RunPlan(spec, "opencl").size();
  EXPECT_TRUE(size.exact);
  long long runnable = 0;
  RunPlan again(spec, "opencl");
  for (PlannedJob job; again.next(job);) runnable += job.skip_reason.empty();
  EXPECT_EQ(size.kept, runnable);
}

}  // namespace
}  // namespace attn

// The attention operation's layouts on PoCL: bhsd, bshd, packed thd with
// uneven lengths (length 1 included) and paged K/V with a scattered block
// table all verify with a kernel that reads through the layout, and each
// planted layout fault (wrong strides, pages in pool order, lengths ignored)
// fails verification. Batch invariance holds on varlen and paged shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <set>

#include "tests/support/pocl_sweep.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/backend/registry.hpp"
#include "tuner/check/determinism_check.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/measure/evaluator.hpp"
#include "tuner/ops/attention_layout.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/sweep/sweep.hpp"

namespace attn {
namespace {

class LayoutTestbed {
 public:
  LayoutTestbed()
      : spec_(load_spec(test::data("layouts.json"))),
        device_(open_device("opencl:0:0")),
        evaluator_(spec_, *device_, RunSettings{}) {}

  // Verification of preset PRESET of the naive kernel on shape SHAPE.
  VerifyReport verify(const std::string& shape, const std::string& preset) {
    const KernelSpec& kernel = spec_.kernel("naive");
    Config config;
    for (const auto& [label, c] : kernel.presets)
      if (label == preset) config = c;
    PreparedShape prepared = evaluator_.prepare_fields(shape, spec_.shape(shape).fields);
    ConfigResult scratch;
    const Plan plan = evaluator_.make_plan(kernel, config, prepared, scratch);
    return prepared.problem->verify(evaluator_.run_once(plan, prepared), spec_.tolerance);
  }

  nlohmann::json determinism(const std::string& shape) {
    DerivedShapes shapes(evaluator_);
    const KernelSpec& kernel = spec_.kernel("naive");
    DeterminismOptions options;
    options.runs = 2;
    options.batch_sizes = {2, 5};
    options.cache_growth_steps = 0;
    return check_determinism(shapes, kernel, kernel.presets.front().second, spec_.shape(shape).fields, options);
  }

  const Spec& spec() const { return spec_; }

 private:
  Spec spec_;
  std::unique_ptr<Device> device_;
  Evaluator evaluator_;
};

LayoutTestbed& testbed() {
  static LayoutTestbed t;
  return t;
}

TEST(AttentionLayouts, EveryLayoutVerifiesWithAKernelReadingThroughIt) {
  for (const char* shape : {"bhsd", "bshd", "thd", "thd_drawn", "paged", "paged_thd"}) {
    const VerifyReport r = testbed().verify(shape, "correct");
    EXPECT_TRUE(r.passed) << shape << ": " << nlohmann::json(r).dump();
    EXPECT_EQ(r.nonfinite, 0) << shape;
    EXPECT_EQ(r.rows_checked, r.rows_total) << shape << ": small shapes check every row";
  }
}

TEST(AttentionLayouts, AKernelReadingBhsdStridesFailsOnOtherLayouts) {
  EXPECT_TRUE(testbed().verify("bhsd", "bhsd_strides").passed) << "the fault is inert where the strides are bhsd's";
  for (const char* shape : {"bshd", "thd"}) {
    const VerifyReport r = testbed().verify(shape, "bhsd_strides");
    EXPECT_FALSE(r.passed) << shape;
  }
}

TEST(AttentionLayouts, AKernelIgnoringTheBlockTableFailsOnScatteredPages) {
  EXPECT_TRUE(testbed().verify("bhsd", "pages_in_order").passed) << "no pool: the fault is inert";
  for (const char* shape : {"paged", "paged_thd"}) {
    const VerifyReport r = testbed().verify(shape, "pages_in_order");
    EXPECT_FALSE(r.passed) << shape << ": " << nlohmann::json(r).dump();
  }
}

TEST(AttentionLayouts, AKernelIgnoringSequenceLengthsFailsOnUnevenLengths) {
  const VerifyReport r = testbed().verify("thd", "longest_lengths");
  EXPECT_FALSE(r.passed) << nlohmann::json(r).dump();
}

TEST(AttentionLayouts, ListedLengthsIncludingOneArePackedInOrder) {
  const AttentionShape s = AttentionShape::from_json(testbed().spec().shape("thd").fields);
  const AttentionLayout layout(s, 1);
  EXPECT_EQ(layout.cu_seqlens_q(), (std::vector<std::int32_t>{0, 1, 18, 48, 53}));
  EXPECT_EQ(layout.cu_seqlens_k(), (std::vector<std::int32_t>{0, 1, 41, 89, 94}));
  // Token 18 (sequence 2's first), head 3: [T][H][D] packing.
  EXPECT_EQ(layout.q_index(2, 3, 0, 5), (18u * 4 + 3) * 32 + 5);
  int b, h, i;
  layout.row_coordinates(layout.first_row(1) + 17, b, h, i);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(h, 1);
  EXPECT_EQ(i, 0);
}

TEST(AttentionLayouts, DrawnLengthsAreUnevenAndFollowTheSequenceNotTheBatch) {
  nlohmann::json fields = testbed().spec().shape("thd_drawn").fields;
  fields["B"] = 8;
  const AttentionLayout batch(AttentionShape::from_json(fields), 7);
  std::set<int> lengths;
  for (int b = 0; b < 8; ++b) {
    lengths.insert(batch.q_len(b));
    EXPECT_GE(batch.q_len(b), 1);
    EXPECT_LE(batch.q_len(b), 20);
    EXPECT_GE(batch.k_len(b), batch.q_len(b));
    EXPECT_LE(batch.k_len(b), 33);
  }
  EXPECT_GT(lengths.size(), 2u);
  fields["B"] = 1;
  fields["sequence_offset"] = 5;
  const AttentionLayout alone(AttentionShape::from_json(fields), 7);
  EXPECT_EQ(alone.q_len(0), batch.q_len(5));
  EXPECT_EQ(alone.k_len(0), batch.k_len(5));
}

TEST(AttentionLayouts, BlockTablePagesAreScatteredDistinctAndInThePool) {
  const AttentionShape s = AttentionShape::from_json(testbed().spec().shape("paged").fields);
  const AttentionLayout layout(s, 1);
  ASSERT_EQ(s.max_pages(), 5);
  ASSERT_EQ(s.pool_pages(), 30);
  const auto& table = layout.block_table();
  ASSERT_EQ(table.size(), 15u);
  std::set<std::int32_t> pages(table.begin(), table.end());
  EXPECT_EQ(pages.size(), 15u) << "every page of every sequence distinct";
  EXPECT_GE(*pages.begin(), 0);
  EXPECT_LT(*pages.rbegin(), 30);
  int in_order = 0;
  for (std::size_t p = 1; p < table.size(); ++p) in_order += table[p] == table[p - 1] + 1;
  EXPECT_LT(in_order, 5) << "pages are not handed out in order";
}

TEST(AttentionLayouts, PoolPagesNoSequenceOwnsHoldNaN) {
  const Spec& spec = testbed().spec();
  const auto problem = find_operation("attention").make_problem(spec.shape("paged").fields, 1);
  const AttentionShape s = AttentionShape::from_json(spec.shape("paged").fields);
  const AttentionLayout layout(s, 1);
  const std::set<std::int32_t> owned(layout.block_table().begin(), layout.block_table().end());
  const auto& k = problem->buffers().at(1);
  ASSERT_EQ(k.name, "k");
  for (int page = 0; page < s.pool_pages(); ++page) {
    std::uint16_t w;
    std::memcpy(&w, k.data.data() + std::size_t(page) * std::size_t(s.page_stride()) * 2, 2);
    EXPECT_EQ(w == 0x7e00u, !owned.contains(page)) << "page " << page;
  }
  EXPECT_EQ(problem->buffers().at(8).name, "block_table");
}

TEST(AttentionLayouts, BatchInvarianceHoldsOnVarlenAndPagedShapes) {
  for (const char* shape : {"thd", "thd_drawn", "paged", "paged_thd"}) {
    const nlohmann::json c = testbed().determinism(shape);
    EXPECT_EQ(c.at("deterministic"), true) << shape << ": " << c.dump(2);
    EXPECT_EQ(c.at("batch_invariant"), true) << shape << ": " << c.dump(2);
    const auto& compared = c.at("details").at("batch_invariance").at("compared");
    ASSERT_EQ(compared.size(), 2u) << shape;
    EXPECT_EQ(compared[1].at("sequences"), (std::vector<int>{0, 4})) << shape;
  }
}

// The paged decode kernel of configs/paged_decode_small.json on PoCL: every
// configuration verifies on scattered pages (uneven cache lengths, 1 included)
// and is deterministic and batch-invariant.
TEST(PagedDecode, EveryOpenCLConfigurationVerifiesAndIsBatchInvariant) {
  test::TempDir dir;
  SweepOptions opt = test::pocl_sweep_options(test::source_dir() / "configs" / "paged_decode_small.json", dir);
  opt.shape_selection = "f32-gqa2-p16,f32-varlen-p8-features";
  opt.kernels = {"paged_decode_cl"};
  opt.settings.determinism.enabled = true;
  opt.settings.determinism.runs = 2;
  opt.settings.determinism.batch_sizes = {2, 5};
  const nlohmann::json lb = test::sweep_leaderboard(opt);
  int ok = 0;
  for (const auto& g : lb.at("groups")) {
    if (g.at("kernel") != "paged_decode_cl") continue;
    for (const auto& e : g.at("entries")) {
      ASSERT_EQ(e.at("status"), "ok") << g.at("shape") << " " << e.dump().substr(0, 2000);
      EXPECT_TRUE(e.at("verify").at("passed").get<bool>());
      EXPECT_EQ(e.at("checks").at("deterministic"), true) << e.at("checks").dump();
      EXPECT_EQ(e.at("checks").at("batch_invariant"), true) << e.at("checks").dump();
      ++ok;
    }
  }
  EXPECT_EQ(ok, 8) << "2 shapes x 4 configurations";
}

}  // namespace
}  // namespace attn

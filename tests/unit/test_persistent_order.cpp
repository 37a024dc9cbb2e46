// The persistent grid's item order of kernels/cuda/persistent_order.cuh (flash_attn_fwd_ws.cu with
// PERSISTENT = 1), compiled here by the host compiler: the same arithmetic the kernel runs.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "kernels/cuda/persistent_order.cuh"

namespace {

using persistent_order::item_slot;
using persistent_order::section_heads;

// Every item w < n_groups * n_heads lands on its own (group, head): no item is computed twice
// and none is left out, for section sizes that divide the head count and ones that do not.
TEST(PersistentOrder, EveryItemTakesADistinctRowBlockAndHead) {
  for (int n_groups : {1, 2, 7, 32})
    for (int n_heads : {1, 3, 16, 64, 100})
      for (int sect : {1, 2, 5, 7, 16, 64, 100}) {
        if (sect > n_heads) continue;
        std::set<std::pair<int, int>> seen;
        for (int w = 0; w < n_groups * n_heads; ++w) {
          const auto s = item_slot(w, n_groups, n_heads, sect);
          ASSERT_GE(s.group, 0);
          ASSERT_LT(s.group, n_groups);
          ASSERT_GE(s.head, 0);
          ASSERT_LT(s.head, n_heads);
          ASSERT_TRUE(seen.insert({s.group, s.head}).second)
              << "item " << w << " repeats group " << s.group << " head " << s.head << " (groups " << n_groups << ", heads "
              << n_heads << ", section " << sect << ")";
        }
      }
}

// The items of a section stay among its heads, heaviest row block first: consecutive items of a
// section never go back to a lighter row block before the heavier ones are handed out.
TEST(PersistentOrder, ASectionTakesItsOwnHeadsHeaviestRowBlockFirst) {
  const int n_groups = 8, n_heads = 20, sect = 6;  // sections of 6, 6, 6 and 2 heads
  int prev_section = -1, prev_group = n_groups;
  for (int w = 0; w < n_groups * n_heads; ++w) {
    const auto s = item_slot(w, n_groups, n_heads, sect);
    const int section = s.head / sect;
    ASSERT_GE(section, prev_section) << "item " << w;
    if (section != prev_section) prev_group = n_groups;
    EXPECT_LE(s.group, prev_group) << "item " << w;
    prev_section = section;
    prev_group = s.group;
  }
  EXPECT_EQ(prev_section, 3);
  // The short last section: its first item is its first head at the heaviest row block.
  const auto last = item_slot(3 * sect * n_groups, n_groups, n_heads, sect);
  EXPECT_EQ(last.head, 18);
  EXPECT_EQ(last.group, n_groups - 1);
}

// One section of every head is the order before sections: every head of a row block, then the next.
TEST(PersistentOrder, ABudgetOfZeroTakesEveryHeadOfARowBlockFirst) {
  const int n_groups = 5, n_heads = 12;
  ASSERT_EQ(section_heads(1 << 20, n_heads, 0), n_heads);
  for (int w = 0; w < n_groups * n_heads; ++w) {
    const auto s = item_slot(w, n_groups, n_heads, n_heads);
    EXPECT_EQ(s.group, n_groups - 1 - w / n_heads);
    EXPECT_EQ(s.head, w % n_heads);
  }
}

TEST(PersistentOrder, SectionHeadsIsWhatTheBudgetHoldsBetweenOneAndEveryHead) {
  const long long mb = 1 << 20;
  // D = 128, N = 4096, fp16 K and V: 2 MB per head; 16 MB hold 8 heads.
  EXPECT_EQ(section_heads(4096LL * 128 * 2 * 2, 64, 16 * mb), 8);
  EXPECT_EQ(section_heads(3 * mb, 64, 16 * mb), 5);   // rounded down
  EXPECT_EQ(section_heads(32 * mb, 64, 16 * mb), 1);  // a head larger than the budget: one at a time
  EXPECT_EQ(section_heads(1024, 64, 16 * mb), 64);    // everything fits: one section
  EXPECT_EQ(section_heads(0, 64, 16 * mb), 64);       // no K / V (Nkv = 0)
}

}  // namespace

// The tile arithmetic of kernels/cuda/attn_tile_ranges.cuh (the wgmma prefill kernels' causal, window and
// Nkv edges), compiled here by the host compiler: the same code the kernels run, checked against the keys
// each query row keeps (kept_keys, the definition of what a row attends).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

// The header needs the struct first.
// clang-format off
#include "kernels/common/attn_params.h"
#include "kernels/cuda/attn_tile_ranges.cuh"
// clang-format on

namespace {

using score_mods::kept_keys;
using score_mods::tile_needs_mask;
using score_mods::unmasked_tiles;

attn_params edges(int nq, int nkv, int causal, int window) {
  attn_params p{};
  p.Nq = nq;
  p.Nkv = nkv;
  p.kv_offset = nkv - nq;  // bottom-right aligned: row i is at position Nkv - Nq + i
  p.causal = causal;
  p.window = window;
  return p;
}

// Whether every key of tile j (block_n keys from j * block_n) exists and is kept by every row first ..
// last: the brute force the range must match.
bool every_row_keeps_the_tile(const attn_params& p, int first, int last, int j, int block_n) {
  const int n0 = j * block_n, n1 = n0 + block_n;  // keys n0 .. n1 - 1
  if (n1 > p.Nkv) return false;
  for (int row = first; row <= last; ++row) {
    int lo = 0, hi = 0;
    kept_keys(p, p.kv_offset + row, lo, hi);
    if (n0 < lo || n1 > hi) return false;
  }
  return true;
}

// UNMASKED_LOOP runs tiles lo .. hi - 1 of a consumer's rows without the mask test: each of them must be
// kept whole by every row (else a masked key would count), and every tile kept whole must be in the range
// (else the loop is slower than it could be, not wrong: checked too, since the kernel's gain depends on it).
// Rows past Nq, Nq > Nkv (negative positions), windows wider and narrower than a tile, tiles of 64, 80, 128.
TEST(TileRanges, UnmaskedTilesAreExactlyTheTilesEveryRowKeepsWhole) {
  int checked = 0, nonempty = 0;
  // Nkv - Nq (the position of row 0) takes every residue modulo the tile widths, so each edge falls on
  // every key of a tile
  std::vector<std::pair<int, int>> sizes;
  for (int nq : {1, 100, 257, 1024}) {
    for (int nkv : {1, 100, 300, 1024, 1100}) sizes.emplace_back(nq, nkv);
    for (int d = -129; d <= 129; ++d)
      if (nq + d >= 1) sizes.emplace_back(nq, nq + d);
  }
  for (const auto& [nq, nkv] : sizes)
    for (int causal : {0, 1})
      for (int window : {0, 1, 60, 200, 700})
        for (int block_n : {64, 80, 128})
          for (int rows : {64, 128})
            for (int first = 0; first < nq + rows; first += rows) {
              const attn_params p = edges(nq, nkv, causal, window);
              const int last = std::min(first + rows, nq) - 1;
              int lo = 0, hi = 0;
              unmasked_tiles(p, false, p.kv_offset + first, p.kv_offset + last, block_n, lo, hi);
              for (int j = 0; j <= nkv / block_n + 1; ++j) {
                const bool in_range = j >= lo && j < hi;
                const bool whole = first <= last && every_row_keeps_the_tile(p, first, last, j, block_n);
                ASSERT_EQ(in_range, whole) << "Nq " << nq << " Nkv " << nkv << " causal " << causal << " window " << window
                                           << " block_n " << block_n << " rows " << first << ".." << last << " tile " << j
                                           << ": range [" << lo << ", " << hi << ")";
                // the kernel's per-warp test agrees on the rows of any warp inside the range
                if (in_range) {
                  ASSERT_FALSE(tile_needs_mask(p, false, j * block_n, block_n, p.kv_offset + first, p.kv_offset + last));
                }
                nonempty += in_range;
                ++checked;
              }
            }
  EXPECT_GT(nonempty, 1000) << "the grid above should reach many plain tiles (of " << checked << ")";
}

// A mask or ALiBi applies to every tile: no tile may skip the test.
TEST(TileRanges, AMaskOrAlibiLeavesNoUnmaskedTile) {
  const attn_params p = edges(1024, 1024, 0, 0);
  int lo = 0, hi = 0;
  unmasked_tiles(p, false, 0, 63, 128, lo, hi);
  EXPECT_EQ(hi - lo, 8);
  unmasked_tiles(p, true, 0, 63, 128, lo, hi);
  EXPECT_LE(hi, lo);
}

}  // namespace

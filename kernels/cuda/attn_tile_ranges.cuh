/* Which KV tiles a block of query rows attends and which of them need per-element masking (causal,
 * sliding window, the Nkv edge): the integer arithmetic of score_mods (attn_score_mods.cuh), in a header
 * of its own so that the host compiler builds it too (tests/unit/test_tile_ranges.cpp checks it against
 * the keys each row keeps).  Needs attn_params (common/attn_params.h) included first. */
#ifndef ATTN_TUNE_CUDA_ATTN_TILE_RANGES_CUH
#define ATTN_TUNE_CUDA_ATTN_TILE_RANGES_CUH

#ifdef __CUDACC__
#define TILE_RANGES_FN __device__ __forceinline__
#else
#include <algorithm>
#define TILE_RANGES_FN inline
#endif

namespace score_mods {
#ifndef __CUDACC__
using std::max;
using std::min;
#endif

/* The KV tiles of block_n keys that query rows m0 .. m0 + rows - 1 attend:
 * tiles tb .. tb + ntiles - 1 (fully masked tiles are never visited).  Rows
 * from m0 >= Nq attend nothing. */
TILE_RANGES_FN void kv_tile_range(const attn_params& p, int m0, int rows, int block_n, int& tb, int& ntiles) {
    const int m_last = min(m0 + rows, p.Nq) - 1;
    const int pos_lo = p.kv_offset + m0, pos_hi = p.kv_offset + m_last;
    int n_lo = 0, n_hi = p.Nkv;
    if (p.causal) n_hi = min(n_hi, pos_hi + 1);
    if (p.window > 0) {
        n_lo = max(n_lo, pos_lo - p.window);
        n_hi = min(n_hi, pos_hi + p.window + 1);
    }
    tb = n_lo / block_n;
    ntiles = (n_hi > n_lo && m0 < p.Nq) ? (n_hi + block_n - 1) / block_n - tb : 0;
}

/* The keys the query at position pos attends: j_lo <= key < j_hi (causal: bottom-right
 * aligned; window: |pos - key| <= window; every key below Nkv otherwise) */
TILE_RANGES_FN void kept_keys(const attn_params& p, int pos, int& j_lo, int& j_hi) {
    j_hi = p.Nkv, j_lo = 0;
    if (p.causal) j_hi = min(j_hi, pos + 1);
    if (p.window > 0) {
        j_hi = min(j_hi, pos + p.window + 1);
        j_lo = pos - p.window;
    }
}

/* whether the tile of block_n keys from n0 needs per-element work for the rows
 * at positions w_pos_lo .. w_pos_hi: it crosses a causal / window / Nkv edge,
 * or a mask or ALiBi applies everywhere (always) */
TILE_RANGES_FN bool tile_needs_mask(const attn_params& p, bool always, int n0, int block_n, int w_pos_lo,
                                    int w_pos_hi) {
    return always || (n0 + block_n > p.Nkv) || (p.causal && n0 + block_n - 1 > w_pos_lo) ||
           (p.window > 0 && (n0 < w_pos_hi - p.window || n0 + block_n - 1 > w_pos_lo + p.window));
}

/* a / b rounded down (b > 0): positions are negative when Nq > Nkv (bottom-right causal) */
TILE_RANGES_FN int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The tiles (of block_n keys, indices relative to key 0) that tile_needs_mask passes for every row at
 * positions pos_lo .. pos_hi: j_lo <= tile < j_hi, empty when a mask or ALiBi applies everywhere */
TILE_RANGES_FN void unmasked_tiles(const attn_params& p, bool always, int pos_lo, int pos_hi, int block_n,
                                   int& j_lo, int& j_hi) {
    j_lo = 0;
    j_hi = always || pos_hi < pos_lo ? 0 : p.Nkv / block_n;
    if (p.causal) j_hi = min(j_hi, floor_div(pos_lo + 1, block_n));
    if (p.window > 0) {
        j_hi = min(j_hi, floor_div(pos_lo + p.window + 1, block_n));
        j_lo = max(j_lo, -floor_div(p.window - pos_hi, block_n)); /* ceil((pos_hi - window) / block_n) */
    }
}

}  // namespace score_mods

#endif

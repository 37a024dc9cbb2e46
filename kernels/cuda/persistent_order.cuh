/* The order in which a persistent grid takes its work items (flash_attn_fwd_ws.cu,
 * PERSISTENT = 1): item w -> (row-block group, batch-major head index).
 *
 * The heads are taken in L2 sections: as many heads as `budget_bytes` holds the K
 * and V of, so the ~one item per SM in flight share a few heads' K / V in L2
 * instead of streaming one head's each (docs/kernels/flash_attn_fwd_ws.md).  Within
 * a section, row-block groups go heaviest first (causal: the last rows attend the
 * most keys), then the section's heads; the last section may be short.  Every item
 * w in [0, n_groups * n_heads) maps to a distinct (group, head).
 *
 * Compiled by NVRTC and by the host compiler (tests/unit/test_persistent_order.cpp). */
#ifndef ATTN_TUNE_CUDA_PERSISTENT_ORDER_CUH
#define ATTN_TUNE_CUDA_PERSISTENT_ORDER_CUH

#ifdef __CUDACC__
#define PERSISTENT_ORDER_FN __host__ __device__ __forceinline__
#else
#define PERSISTENT_ORDER_FN inline
#endif

namespace persistent_order {

/* Heads per section: budget_bytes / kv_bytes_per_head, between 1 and n_heads; a
 * budget of 0 is one section of every head. */
PERSISTENT_ORDER_FN int section_heads(long long kv_bytes_per_head, int n_heads, long long budget_bytes) {
    if (budget_bytes <= 0) return n_heads;
    const long long n = budget_bytes / (kv_bytes_per_head > 0 ? kv_bytes_per_head : 1);
    return n < 1 ? 1 : n > n_heads ? n_heads : (int)n;
}

struct Slot {
    int group; /* row-block group, 0 = the first rows */
    int head;  /* batch-major head index b * Hq + h */
};

PERSISTENT_ORDER_FN Slot item_slot(int w, int n_groups, int n_heads, int sect) {
    const int s0 = w / (sect * n_groups) * sect;             /* the section's first head */
    const int s_n = sect < n_heads - s0 ? sect : n_heads - s0; /* the last section may be short */
    const int r = w - s0 * n_groups;                         /* the item within its section */
    return Slot{n_groups - 1 - r / s_n, s0 + r % s_n};
}

}  // namespace persistent_order

#endif

/* flash_attn_fwd_ws: warp-specialized prefill forward for Hopper (sm_90a).
 *
 * The operation and run-time contract of flash_attn_fwd.cu (fp16 / bf16;
 * bottom-right causal, sliding window, additive mask, ALiBi, sinks, GQA; D 64,
 * 128 or 256), organised as FlashAttention-3 is:
 *
 *   warpgroup 0       producer: one thread issues TMA bulk tensor copies of Q
 *                     (once) and of K / V tiles into a STAGES-deep ring in
 *                     shared memory; the copies complete on mbarriers as
 *                     transaction bytes.  Its registers go back to the pool
 *                     (setmaxnreg.dec).
 *   warpgroups 1..C   consumers: CONS_ROWS query rows each (64 per m64 row
 *                     tile), S = Q K^T on one wgmma m64n{BLOCK_N}k16 per k-step
 *                     and O += P V on m64n64k16, reading Q, K and V from the
 *                     128-byte-swizzled tiles the copy engine wrote; online
 *                     softmax in registers
 *                     (setmaxnreg.inc).  A consumer waits on a stage's
 *                     "full" mbarrier by parity and releases it through its
 *                     "empty" mbarrier once its wgmma have read it.
 *
 * K and V have separate full / empty barriers, so S of a tile starts as soon
 * as its K landed and K's buffer is refilled as soon as every S read it.
 * OVERLAP = 1: FA3's intra-warpgroup overlap (S of tile j + 1 and P V of tile j
 * in flight together, the softmax of j + 1 under P V).  PINGPONG = 1 (2-3
 * consumers): the consumers take turns issuing that pair of products (OVERLAP
 * 1) or each product (OVERLAP 0), ordered by named barriers, so one's softmax
 * overlaps the others' tensor-core work.
 *
 * The tensor maps (kernel parameters after the params struct) describe Q, K, V
 * and O as 3-D tensors {D, N, B * H} with boxes of {64, 64} (Q, O) and {64, BLOCK_N}
 * (K, V) and the 128-byte swizzle: each box is one 64-column panel of the tile
 * layout of cuda/ptx/wgmma.cuh.  Rows past N arrive as zeros (never another
 * head's rows) and are masked like any key past Nkv.
 *
 * PERSISTENT = 1: a grid of at most one block per SM loops over the work items
 * (query row block, head, batch), in sections of heads whose K / V fit
 * L2_SECTION_KB, heaviest row blocks first within a section (causal: the rows
 * near the end attend the most keys), each block taking the next item from a
 * counter in the workspace once it is done with one (below); the
 * producer loads the next item's Q as soon as the consumers' last S of the
 * current one has read Q (mbarrier q_empty) and its K / V into the ring as
 * slots free up, so the ring never drains between items and the consumers'
 * epilogue overlaps the next item's loads.
 *
 * ITEM_PIPELINE = 1 (PERSISTENT, OVERLAP 1, one block per cluster): the
 * OVERLAP pipeline runs on across items.  Q has two buffers,
 * so the next item's Q lands while this one computes; at an item's end the
 * consumer issues its last P V and the next item's first S together, stores
 * O while that S computes, then runs the next item's first softmax.  An item
 * no longer pays its first S and last P V alone (short items: N = 1k has 8
 * tiles of 128 keys; docs/kernels/flash_attn_fwd_ws.md).  Without PINGPONG its consumers
 * fall into step and wait on each other's products (20% longer per tile at
 * D = 64, measured by WS_TRACE); PINGPONG keeps them apart, and the item's
 * last turn carries the next item's first S.
 *
 * CLUSTER = 2: the two blocks of a cluster take two adjacent row blocks of
 * one head (one work item) and share each K / V tile: each producer loads
 * half of its rows with a copy multicast to both blocks' rings, each block's
 * full barrier expects the whole tile, and every consumer warp releases a
 * slot in both blocks (a slot is refilled for both only when both are done
 * with it).  Both blocks walk the KV tiles of the pair's rows; a block skips
 * (waits for and releases) the ones its own rows do not attend.
 *
 * Launch (the spec): grid [ceil_div(Nq, BLOCK_M), Hq, B] with BLOCK_M =
 * WS_CONSUMERS * CONS_ROWS (the row-block count rounded up to a multiple of
 * CLUSTER; PERSISTENT: [CLUSTER * min(items, compute_units / CLUSTER), 1, 1]),
 * cluster [CLUSTER, 1, 1], block [128 * (WS_CONSUMERS + 1)], dynamic shared
 * memory WS_SMEM_BYTES; one block per SM by design (__launch_bounds__(.., 1),
 * which setmaxnreg needs).
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/attn_params.h"

/* ------------------------------------------------------------------ tunables */
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef DTYPE
#define DTYPE 1 /* 1 = fp16, 2 = bf16 */
#endif
#ifndef WS_CONSUMERS
#define WS_CONSUMERS 2 /* consumer warpgroups */
#endif
#ifndef CONS_ROWS
#define CONS_ROWS 64 /* query rows per consumer warpgroup: 64 or 128 (two m64 row tiles) */
#endif
#ifndef BLOCK_N
#define BLOCK_N 128 /* keys per K / V tile: 64, 80 (D = 256 in 227 KB with 2 stages), 128, 176 or 192 */
#endif
#ifndef STAGES
/* K / V tiles in the shared-memory ring.  1 works because K and V have their own barriers: K's slot
 * is refilled while P V reads V, V's while S reads K (D = 256 with 128-key tiles, where two stages
 * do not fit beside Q: docs/kernels/flash_attn_fwd_ws.md, "One stage of 128 keys at D = 256") */
#define STAGES 2
#endif
/* 0: no setmaxnreg (every thread keeps the entry budget, 65536 / threads);
 * 1: producer / consumer budgets (FA3's: 56/256 for 1 consumer, 24/240 for 2,
 * 32/160 for 3), or PRODUCER_REGS / CONSUMER_REGS when given */
#ifndef REG_SPLIT
#define REG_SPLIT 1
#endif
#ifndef OVERLAP
#define OVERLAP 1
#endif
#ifndef PINGPONG
#define PINGPONG 0
#endif
#ifndef PERSISTENT
#define PERSISTENT 0 /* 1: a loop over work items in a grid of at most one block per SM */
#endif
#ifndef CLUSTER
#define CLUSTER 1 /* 2: clusters of two blocks sharing K / V tiles through multicast copies */
#endif
/* PERSISTENT: the work items' heads are taken in sections whose K and V fit
 * L2_SECTION_KB (kilobytes), row blocks heaviest first within a section, so the
 * ~132 items in flight share the K / V of few heads in L2; 0: one section (every
 * head of a row block before the next row block: the items in flight then read
 * 132 heads' K / V, which leaves L2 at D = 128 and N >= 1024) */
#ifndef L2_SECTION_KB
#define L2_SECTION_KB 16384
#endif
/* independent partial chains of each row's max and sum in the softmax (1: one
 * serial chain; 4: four, combined at the end: the max is bitwise the same, the
 * sum is added in another order). The profile's top stall is a wait on the
 * previous instruction of a dependent chain. */
#ifndef SOFTMAX_CHAINS
#define SOFTMAX_CHAINS 1
#endif
/* OVERLAP 1 only. 0: the softmax of tile j + 1 packs its P while P V of tile j
 * still reads the previous P (two P live); 1: it leaves the probabilities in S's
 * float registers and packs them after P V of tile j retired (FA3's order: one P
 * live, 32 registers fewer at BLOCK_N 128, so 3 consumers fit 160) */
#ifndef LATE_PACK
#define LATE_PACK 0
#endif
/* OVERLAP 1 only. 1: the loop iterations whose softmax tile no row of the consumer masks (no causal,
 * window or Nkv edge crosses it; no mask or ALiBi) run in a loop of their own, compiled without the
 * per-tile mask test and its branch (1.01-1.07x at D = 128, results/h200/hopper_ws/unmasked_loop/);
 * 0: one loop, the test in every iteration.  By default 1 where the second copy of the step fits the
 * registers at D = 128: 2 consumers with REG_SPLIT and no cluster (3 consumers at 160 registers spill
 * 40-60 bytes with it, REG_SPLIT 0 at 168 12-16, CLUSTER 2 40).  Not in OVERLAP 0's loop: there it
 * measured 0.99-1.03x (D = 64, 3 consumers) for about 1.4x the NVRTC time */
#ifndef UNMASKED_LOOP
#define UNMASKED_LOOP (WS_CONSUMERS == 2 && REG_SPLIT == 1 && CLUSTER == 1)
#endif
#ifndef ITEM_PIPELINE
#define ITEM_PIPELINE 0 /* 1: the OVERLAP pipeline carried across a persistent block's items (above) */
#endif
/* 1: each consumer walks only the KV tiles its own rows attend (waits for and releases the
 * item's others) instead of all the item's tiles, whose extra ones its rows mask entirely: with
 * 3 consumers of 64 rows, a sliding window's item spans about one tile more than each consumer's
 * rows (a fully masked tile adds exact zeros, so O is bitwise the same).  No PINGPONG (the turns
 * pair up over the item's tiles), no ITEM_PIPELINE, no CLUSTER (its skips of the pair's tiles). */
#ifndef CONS_TILES
#define CONS_TILES 0
#endif
/* 1: a consumer writes its normalised O rows to its own shared-memory buffer and one thread stores them
 * with TMA copies (o_map), which run on while the consumer starts its next item; 0: every thread stores
 * its pairs of O to global memory itself */
#ifndef STORE_O_TMA
#define STORE_O_TMA 0
#endif
/* WS_TRACE = 1 (OVERLAP 1; a measuring build, never swept): the first thread of each consumer warpgroup
 * of block 0 records clock64() when it issues a loop iteration's S and P V, when the S retired and when
 * the P V retired, into the workspace after its first 16 bytes (kTraceIters iterations per consumer);
 * scripts/gpu/ws_trace.sh reads them: do the consumers issue in step? */
#ifndef WS_TRACE
#define WS_TRACE 0
#endif

#if DTYPE != 1 && DTYPE != 2
#error "flash_attn_fwd_ws: DTYPE must be 1 (fp16) or 2 (bf16)"
#endif
#if HEAD_DIM != 64 && HEAD_DIM != 128 && HEAD_DIM != 256
#error "flash_attn_fwd_ws: HEAD_DIM must be 64, 128 or 256 (other head dimensions: flash_attn_fwd.cu)"
#endif
#if WS_CONSUMERS < 1 || WS_CONSUMERS > 3
#error "flash_attn_fwd_ws: WS_CONSUMERS must be 1, 2 or 3"
#endif
#if CONS_ROWS != 64 && CONS_ROWS != 128
#error "flash_attn_fwd_ws: CONS_ROWS must be 64 or 128"
#endif
#if BLOCK_N != 64 && BLOCK_N != 80 && BLOCK_N != 128 && BLOCK_N != 176 && BLOCK_N != 192
#error "flash_attn_fwd_ws: BLOCK_N must be 64, 80, 128, 176 or 192"
#endif
#if STAGES < 1 || STAGES > 4
#error "flash_attn_fwd_ws: STAGES must be 1..4"
#endif
#if REG_SPLIT != 0 && REG_SPLIT != 1
#error "flash_attn_fwd_ws: REG_SPLIT must be 0 or 1"
#endif
#if OVERLAP != 0 && OVERLAP != 1
#error "flash_attn_fwd_ws: OVERLAP must be 0 or 1"
#endif
#if LATE_PACK != 0 && (LATE_PACK != 1 || OVERLAP != 1)
#error "flash_attn_fwd_ws: LATE_PACK must be 0, or 1 with OVERLAP 1"
#endif
#if PINGPONG != 0 && PINGPONG != 1
#error "flash_attn_fwd_ws: PINGPONG must be 0 or 1"
#endif
#if PERSISTENT != 0 && PERSISTENT != 1
#error "flash_attn_fwd_ws: PERSISTENT must be 0 or 1"
#endif
#if CLUSTER != 1 && CLUSTER != 2
#error "flash_attn_fwd_ws: CLUSTER must be 1 or 2"
#endif
#if L2_SECTION_KB < 0
#error "flash_attn_fwd_ws: L2_SECTION_KB must be >= 0"
#endif
/* PERSISTENT without clusters: each block's first item is its index, the next
 * ones come from a counter in the workspace (atomicAdd), so a block that finished
 * a light item takes the next one, as the hardware scheduler hands a free SM the
 * next block (causal items differ up to 32-fold in work).  The producer passes
 * the index to its consumers with the item's Q (q_full); the last block to finish
 * resets the counter for the next launch, so the caller zeroes the workspace's
 * first 8 bytes once.  With CLUSTER 2 both blocks must take the same pair: a
 * static round robin (item b, b + gridDim.x / 2, ...). */
#define WS_DYNAMIC_ITEMS (PERSISTENT == 1 && CLUSTER == 1)
#if ITEM_PIPELINE != 0 && (ITEM_PIPELINE != 1 || !WS_DYNAMIC_ITEMS || OVERLAP != 1)
#error "flash_attn_fwd_ws: ITEM_PIPELINE must be 0, or 1 with PERSISTENT 1, CLUSTER 1 and OVERLAP 1"
#endif
#if CONS_TILES != 0 && (CONS_TILES != 1 || PINGPONG != 0 || ITEM_PIPELINE != 0 || CLUSTER != 1)
#error "flash_attn_fwd_ws: CONS_TILES must be 0, or 1 with PINGPONG 0, ITEM_PIPELINE 0 and CLUSTER 1"
#endif
#if STORE_O_TMA != 0 && STORE_O_TMA != 1
#error "flash_attn_fwd_ws: STORE_O_TMA must be 0 or 1"
#endif
#if WS_TRACE != 0 && (WS_TRACE != 1 || OVERLAP != 1)
#error "flash_attn_fwd_ws: WS_TRACE must be 0, or 1 with OVERLAP 1"
#endif
#if SOFTMAX_CHAINS != 1 && SOFTMAX_CHAINS != 2 && SOFTMAX_CHAINS != 4
#error "flash_attn_fwd_ws: SOFTMAX_CHAINS must be 1, 2 or 4"
#endif
#if UNMASKED_LOOP != 0 && UNMASKED_LOOP != 1
#error "flash_attn_fwd_ws: UNMASKED_LOOP must be 0 or 1"
#endif
#if PINGPONG && WS_CONSUMERS < 2
#error "flash_attn_fwd_ws: PINGPONG orders the products of 2 or 3 consumers"
#endif

#if REG_SPLIT
#ifndef PRODUCER_REGS
#define PRODUCER_REGS (WS_CONSUMERS == 1 ? 56 : WS_CONSUMERS == 2 ? 24 : 32)
#endif
#ifndef CONSUMER_REGS
#define CONSUMER_REGS (WS_CONSUMERS == 1 ? 256 : WS_CONSUMERS == 2 ? 240 : 160)
#endif
#if PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * WS_CONSUMERS > 65536
#error "flash_attn_fwd_ws: PRODUCER_REGS + WS_CONSUMERS * CONSUMER_REGS exceed the 65536 registers of an SM (per 128 threads)"
#endif
#endif

/* Q tile (ITEM_PIPELINE: two) + STAGES x (K, V) tiles (+ STORE_O_TMA: an O tile) + 1024 bytes to align
 * the first panel */
#define WS_BLOCK_M (WS_CONSUMERS * CONS_ROWS)
#define WS_SMEM_BYTES \
    (1024 + 2 * ((1 + ITEM_PIPELINE + STORE_O_TMA) * WS_BLOCK_M * HEAD_DIM + 2 * STAGES * BLOCK_N * HEAD_DIM))
#if WS_SMEM_BYTES > 232448
#error "flash_attn_fwd_ws: shared memory over the 227 KB per-block limit"
#endif

#if DTYPE == 1
typedef __half elem_t;
#else
typedef __nv_bfloat16 elem_t;
#define WGMMA_AB "bf16"
#endif
#include "cuda/ptx/cluster.cuh"
#include "cuda/ptx/math.cuh"
#include "cuda/ptx/mbarrier.cuh"
#include "cuda/ptx/mma.cuh"
#include "cuda/ptx/tma.cuh"
#include "cuda/ptx/warpgroup.cuh"
#include "cuda/ptx/wgmma.cuh"
#include "cuda/attn_score_mods.cuh"
#include "cuda/persistent_order.cuh"
#include "cuda/wgmma_output.cuh"

namespace ws {

using namespace ptx;

constexpr int kConsumers = WS_CONSUMERS;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kBlockM = WS_BLOCK_M;
constexpr int kRT = CONS_ROWS / 64;           /* m64 row tiles per consumer */
constexpr int kKS = HEAD_DIM / 16;            /* k-steps of Q K^T */
constexpr int kSC = BLOCK_N / 8;              /* n8 chunks of S (and of P) per row */
constexpr int kSAcc = BLOCK_N / 2;            /* S accumulators per thread and m64 row tile */
constexpr int kPRegs = BLOCK_N / 4;           /* P packed to 16 bits: A-fragment registers per thread and row tile */
constexpr int kON = HEAD_DIM / 64;            /* n64 pieces of O (= 64-column panels of a row) */
constexpr int kPKS = BLOCK_N / 16;            /* k-steps of P V */
constexpr int kPanel64 = 64 * 128;            /* one 64-row panel: 8 KB */
constexpr int kQBytes = 2 * kBlockM * HEAD_DIM;
constexpr int kQBufs = 1 + ITEM_PIPELINE; /* item n's Q is in buffer n % kQBufs */
constexpr int kTileBytes = 2 * BLOCK_N * HEAD_DIM; /* one K or one V tile */
constexpr int kCluster = CLUSTER;
constexpr int kSliceRows = BLOCK_N / kCluster; /* rows of a K / V tile one block's producer loads */
using score_mods::kLog2e;
/* named barriers 1..3: consumer c waits on 1 + c for its turn (PINGPONG) */
[[maybe_unused]] constexpr int kTurnBarrier = 1;
/* named barriers 4..6: consumer c's threads around its O buffer (STORE_O_TMA) */
[[maybe_unused]] constexpr int kOBarrier = 4;

#define kNegInf (__int_as_float(0xff800000))

/* mbarriers, in static shared memory */
struct Barriers {
    /* per Q buffer; q_empty: one arrival per consumer warp after its last S of an item */
    unsigned long long q_full[kQBufs], q_empty[kQBufs];
    int item[kQBufs]; /* WS_DYNAMIC_ITEMS: the index of the item whose Q q_full announces (n_items: no more) */
    unsigned long long k_full[STAGES], v_full[STAGES];   /* producer's arrival + transaction bytes */
    unsigned long long k_empty[STAGES], v_empty[STAGES]; /* one arrival per consumer warp of the cluster */
};

/* One work item: CLUSTER adjacent query row blocks of head h of batch b (this
 * block's is m_block, rows from m0, attending KV tiles tb .. tb + ntiles - 1),
 * whose KV tiles ring_tb .. ring_tb + ring_tiles - 1 (those of all its rows)
 * pass through the ring; the block's own tiles start at ring tile `skip`. */
struct WorkItem {
    int h, b, m0, tb, ntiles, ring_tb, ring_tiles, skip;
};

/* Item w (PERSISTENT: L2 sections of heads; within one, row-block groups
 * heaviest first, then its heads; otherwise the block's own) for the block of
 * rank `rank` in its cluster */
__device__ __forceinline__ WorkItem work_item(const attn_params& p, int w, int rank) {
    const int n_groups = ((p.Nq + kBlockM - 1) / kBlockM + kCluster - 1) / kCluster;
    WorkItem t;
    int group;
#if PERSISTENT
    /* K and V bytes per query head: a K / V head is read by q_per_kv of them */
    const long long kv_bytes = (long long)p.Nkv * HEAD_DIM * 2 * 2 / p.q_per_kv;
    const int n_heads = p.Hq * p.B;
    const persistent_order::Slot slot = persistent_order::item_slot(
        w, n_groups, n_heads, persistent_order::section_heads(kv_bytes, n_heads, L2_SECTION_KB * 1024LL));
    group = slot.group;
    t.h = slot.head % p.Hq;
    t.b = slot.head / p.Hq;
#else
    (void)w;
    group = n_groups - 1 - (int)blockIdx.x / kCluster; /* heavy (late, for causal) row blocks first */
    t.h = blockIdx.y;
    t.b = blockIdx.z;
#endif
    t.m0 = (group * kCluster + rank) * kBlockM;
    score_mods::kv_tile_range(p, t.m0, kBlockM, BLOCK_N, t.tb, t.ntiles);
#if CLUSTER == 1
    t.ring_tb = t.tb;
    t.ring_tiles = t.ntiles;
    t.skip = 0;
#else
    /* the tiles of the group's rows: the union of its blocks' ranges (they grow with the row) */
    score_mods::kv_tile_range(p, group * kCluster * kBlockM, kCluster * kBlockM, BLOCK_N, t.ring_tb, t.ring_tiles);
    t.skip = t.ntiles > 0 ? t.tb - t.ring_tb : 0;
#endif
    return t;
}

}  // namespace ws

/* ------------------------------------------------------------------- kernel */
extern "C" __global__ void __launch_bounds__(ws::kThreads, 1)
flash_attn_fwd_ws(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
                  const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
                  float* __restrict__ wsp, attn_params p, const __grid_constant__ ptx::tensor_map q_map,
                  const __grid_constant__ ptx::tensor_map k_map, const __grid_constant__ ptx::tensor_map v_map,
                  const __grid_constant__ ptx::tensor_map o_map) {
    using namespace ws;
    (void)q;
    (void)k;
    (void)v;
    extern __shared__ unsigned char smem_raw[];
    __shared__ Barriers bars;
    /* panels start on 1024-byte boundaries (the swizzle atom) */
    const unsigned sQa = (smem_addr(smem_raw) + 1023u) & ~1023u;
    const unsigned sKa = sQa + kQBufs * kQBytes;
    const unsigned sVa = sKa + STAGES * kTileBytes;
    [[maybe_unused]] const unsigned sOa = sVa + STAGES * kTileBytes; /* STORE_O_TMA: consumer c's rows from c * CONS_ROWS */

    const int tid = threadIdx.x;
    const int wg = tid >> 7; /* 0 producer, 1.. consumers */
    const int Nq = p.Nq, Nkv = p.Nkv;
#if CLUSTER == 2
    const int rank = (int)cluster_ctarank();
#else
    const int rank = 0;
#endif
    /* work items of this block (of its cluster): item_index(0), item_index(1), ... while < n_items */
#if PERSISTENT
    const int n_items = (((Nq + kBlockM - 1) / kBlockM + kCluster - 1) / kCluster) * p.Hq * p.B;
    const int w_first = blockIdx.x / kCluster, w_step = gridDim.x / kCluster;
#else
    const int n_items = 1, w_first = 0, w_step = 1;
#endif
#if !WS_DYNAMIC_ITEMS && !WS_TRACE
    (void)wsp;
#endif
#if WS_DYNAMIC_ITEMS
    unsigned* const items_taken = reinterpret_cast<unsigned*>(wsp); /* items handed out after the first wave */
    unsigned* const blocks_done = items_taken + 1;
#endif

    if (tid == 0) {
#pragma unroll
        for (int b = 0; b < kQBufs; ++b) {
            mbar_init(&bars.q_full[b], 1);
            mbar_init(&bars.q_empty[b], 4 * kConsumers);
        }
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&bars.k_full[s], 1);
            mbar_init(&bars.v_full[s], 1);
            mbar_init(&bars.k_empty[s], 4 * kConsumers * kCluster);
            mbar_init(&bars.v_empty[s], 4 * kConsumers * kCluster);
        }
        mbar_init_fence();
    }
#if CLUSTER == 2
    __syncwarp();
    cluster_sync(); /* the peer's barriers are initialised before any copy or arrival reaches them */
#else
    __syncthreads();
#endif

    if (wg == 0) {
        /* ================================ producer ================================ */
#if REG_SPLIT
        setmaxnreg_dec<PRODUCER_REGS>();
#endif
        if (tid == 0) {
            tma_prefetch_map(&q_map);
            tma_prefetch_map(&k_map);
            tma_prefetch_map(&v_map);
            int g = 0; /* ring tiles issued so far (over every item): slot g % STAGES */
            int n_done = 0;
#if WS_DYNAMIC_ITEMS
            /* an index past the items ends the loop (n_items), whatever the counter holds */
            auto item_index = [&](int n) {
                if (n == 0) return w_first;
                const unsigned taken = atomicAdd(items_taken, 1u);
                return taken < (unsigned)(n_items - w_step) ? w_step + (int)taken : n_items;
            };
#else
            auto item_index = [&](int n) { return w_first + n * w_step; };
#endif
#pragma unroll 1
            for (int w = item_index(0); w < n_items; ++n_done, w = item_index(n_done)) {
                const WorkItem t = work_item(p, w, rank);
                const int q_head = t.b * p.Hq + t.h, kv_head = t.b * p.Hkv + t.h / p.q_per_kv;
                /* Q's buffer is free once every consumer's last S of its previous item retired */
                const int qb = n_done % kQBufs;
                if (n_done >= kQBufs) mbar_wait(&bars.q_empty[qb], (n_done / kQBufs - 1) & 1);
#if WS_DYNAMIC_ITEMS
                bars.item[qb] = w; /* published by the arrival on q_full (release), read after its wait */
#endif
                mbar_arrive_expect_tx(&bars.q_full[qb], kQBytes);
#pragma unroll
                for (int rt = 0; rt < kBlockM / 64; ++rt)
#pragma unroll
                    for (int c = 0; c < kON; ++c)
                        tma_load_3d(sQa + qb * kQBytes + (rt * kON + c) * kPanel64, &q_map, 64 * c, t.m0 + 64 * rt,
                                    q_head, &bars.q_full[qb]);
#pragma unroll 1
                for (int it = 0; it < t.ring_tiles; ++it, ++g) {
                    const int stage = g % STAGES;
                    const unsigned parity = ((g / STAGES) & 1) ^ 1; /* the release of ring tile g - STAGES */
                    const int n0 = (t.ring_tb + it) * BLOCK_N + rank * kSliceRows;
                    const unsigned k_dst = sKa + stage * kTileBytes + rank * kSliceRows * 128;
                    const unsigned v_dst = sVa + stage * kTileBytes + rank * kSliceRows * 128;
#if CLUSTER == 2
                    /* this block's half of the tile's rows, to both blocks (the peer's consumers released it too) */
                    if (g >= STAGES) mbar_wait_cluster(&bars.k_empty[stage], parity);
                    mbar_arrive_expect_tx(&bars.k_full[stage], kTileBytes);
#pragma unroll
                    for (int c = 0; c < kON; ++c)
                        tma_load_3d_multicast(k_dst + c * BLOCK_N * 128, &k_map, 64 * c, n0, kv_head, &bars.k_full[stage],
                                              0x3);
                    if (g >= STAGES) mbar_wait_cluster(&bars.v_empty[stage], parity);
                    mbar_arrive_expect_tx(&bars.v_full[stage], kTileBytes);
#pragma unroll
                    for (int c = 0; c < kON; ++c)
                        tma_load_3d_multicast(v_dst + c * BLOCK_N * 128, &v_map, 64 * c, n0, kv_head, &bars.v_full[stage],
                                              0x3);
#else
                    if (g >= STAGES) mbar_wait(&bars.k_empty[stage], parity);
                    mbar_arrive_expect_tx(&bars.k_full[stage], kTileBytes);
#pragma unroll
                    for (int c = 0; c < kON; ++c)
                        tma_load_3d(k_dst + c * BLOCK_N * 128, &k_map, 64 * c, n0, kv_head, &bars.k_full[stage]);
                    if (g >= STAGES) mbar_wait(&bars.v_empty[stage], parity);
                    mbar_arrive_expect_tx(&bars.v_full[stage], kTileBytes);
#pragma unroll
                    for (int c = 0; c < kON; ++c)
                        tma_load_3d(v_dst + c * BLOCK_N * 128, &v_map, 64 * c, n0, kv_head, &bars.v_full[stage]);
#endif
                }
            }
#if WS_DYNAMIC_ITEMS
            /* no more items: the consumers read n_items once they are done with the buffer's last Q */
            const int qb = n_done % kQBufs;
            if (n_done >= kQBufs) mbar_wait(&bars.q_empty[qb], (n_done / kQBufs - 1) & 1);
            bars.item[qb] = n_items;
            mbar_arrive(&bars.q_full[qb]);
            /* every block has taken its last index once all have come here: the last resets */
            if (atomicAdd(blocks_done, 1u) == gridDim.x - 1) {
                atomicExch(items_taken, 0u);
                atomicExch(blocks_done, 0u);
            }
#endif
        }
#if CLUSTER == 2
        __syncwarp();
        cluster_sync(); /* no block leaves while its peer may still arrive on its barriers */
#endif
        return; /* every copy issued lands in a ring slot some consumer waits for */
    }

    /* ================================ consumers ================================ */
#if REG_SPLIT
    setmaxnreg_inc<CONSUMER_REGS>();
#endif
    const int cons = wg - 1;
    const int ctid = tid - 128 * wg;
    const int lane = ctid & 31;
    const int cwarp = ctid >> 5;
    const bool warp_leader = lane == 0;
    /* block row of this warp's first row in row tile rt: cons * CONS_ROWS + 64 rt + 16 cwarp */
    const int crow = cons * CONS_ROWS + 16 * cwarp;
    const bool always_generic = p.has_mask || p.max_bias > 0.f;
    const float sl2 = p.scale * kLog2e;
    const int lr = lane >> 2, lc = (lane & 3) * 2; /* accumulator row (and +8), column pair */
    /* 0 at run time, unknown to the compiler: the P carried across iterations is
     * XOR-ed with it so ptxas sees an in-loop definition (docs/kernels/flash_attn_fwd_wgmma.md) */
    [[maybe_unused]] const unsigned opaque0 = (unsigned)p.Nq >> 31;
#if WS_TRACE
    /* 3 clocks per loop iteration: issue, S retired, P V retired (kTraceIters iterations) */
    constexpr int kTraceIters = 2048;
    unsigned long long* const trace = ctid == 0 && blockIdx.x + blockIdx.y + blockIdx.z == 0
                                          ? reinterpret_cast<unsigned long long*>(wsp + 4) + cons * 3 * kTraceIters
                                          : nullptr;
    int n_traced = 0;
#define WS_TRACE_AT(what) \
    if (trace && n_traced < kTraceIters) trace[3 * n_traced + (what)] = clock64()
#else
#define WS_TRACE_AT(what) ((void)0)
#endif

    /* S = Q K^T of the tile in `stage` for every row tile, Q from the buffer at q_st: issued and committed */
    /* (one m64n{BLOCK_N}k16 per k-step and row tile: BLOCK_N / 64 n64 pieces would each read Q from
     * shared memory again, and with both operands there they ask for all the bandwidth it has, which
     * the K / V copies and P V's reads of V share: docs/kernels/flash_attn_fwd_ws.md, "S in one instruction") */
    auto issue_s = [&](int stage, float (&s)[kRT][kSAcc], unsigned q_st) {
        const unsigned k_st = sKa + stage * kTileBytes;
        wgmma::fence();
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks) {
            const unsigned k_off = (ks >> 2) * BLOCK_N * 128 + (ks & 3) * 32;
#pragma unroll
            for (int r = 0; r < kRT; ++r) {
                const int rt = cons * kRT + r; /* Q row tile of the block */
                const unsigned long long ad =
                    wgmma::desc_sw128(q_st + (rt * kON + (ks >> 2)) * kPanel64 + (ks & 3) * 32);
                wgmma::mma_ss_n<BLOCK_N>(s[r], ad, wgmma::desc_sw128(k_st + k_off), ks > 0);
            }
        }
        wgmma::commit();
    };

    auto s_done = [&](float (&s)[kRT][kSAcc]) {
#pragma unroll
        for (int r = 0; r < kRT; ++r) wgmma::hold(s[r]);
    };

    /* the warp is done reading Q (its wgmma retired): one arrival per warp */
    auto release = [&](unsigned long long* bar) {
        __syncwarp();
        if (warp_leader) mbar_arrive(bar);
    };
    /* ... a K or V ring slot: one arrival per warp on it in every block of the cluster */
    auto release_slot = [&](unsigned long long* bar) {
        __syncwarp();
        if (warp_leader) {
            mbar_arrive(bar);
#if CLUSTER == 2
            mbar_arrive_cluster(bar, rank ^ 1);
#endif
        }
    };
    /* ring tiles g0 .. g0 + n - 1 whose keys this block's (CONS_TILES: this consumer's) rows do
     * not attend: waited for (both blocks' copies landed in this block's slot) and released */
    [[maybe_unused]] auto skip_tiles = [&](int g0, int n) {
#pragma unroll 1
        for (int i = g0; i < g0 + n; ++i) {
            mbar_wait(&bars.k_full[i % STAGES], (i / STAGES) & 1);
            mbar_wait(&bars.v_full[i % STAGES], (i / STAGES) & 1);
            release_slot(&bars.k_empty[i % STAGES]);
            release_slot(&bars.v_empty[i % STAGES]);
        }
    };

    int g = 0; /* ring tiles consumed so far (over every item), as the producer counts them */
    int n_done = 0;
#if WS_DYNAMIC_ITEMS
    /* the producer announces item n with its Q: wait for it, then read which item it is */
    auto item_index = [&](int n) {
        mbar_wait(&bars.q_full[n % kQBufs], (n / kQBufs) & 1);
        return *static_cast<volatile int*>(&bars.item[n % kQBufs]);
    };
#else
    auto item_index = [&](int n) { return w_first + n * w_step; };
#endif
    /* the row state (max, sum) of each row's online softmax: ITEM_PIPELINE carries the next item's
     * (its first softmax runs at the end of the item before it) */
    float row_m[kRT][2], row_l[kRT][2];
    auto reset_rows = [&]() {
#pragma unroll
        for (int r = 0; r < kRT; ++r) row_m[r][0] = row_m[r][1] = kNegInf, row_l[r][0] = row_l[r][1] = 0.f;
    };
#if OVERLAP == 1
    unsigned pk[kRT][kPRegs]; /* P of the tile whose P V comes next */
#endif
#pragma unroll 1
    for (int w = item_index(0); w < n_items;) {
        const WorkItem t = work_item(p, w, rank);
        const unsigned q_st = sQa + (n_done % kQBufs) * kQBytes; /* this item's Q */
#if CLUSTER == 2
        skip_tiles(g, t.skip);
        g += t.skip;
#endif
#if CONS_TILES
        /* this consumer's rows attend tiles tb .. tb + ntiles - 1, within the item's */
        int tb, ntiles;
        score_mods::kv_tile_range(p, t.m0 + cons * CONS_ROWS, CONS_ROWS, BLOCK_N, tb, ntiles);
        /* from lane 0: values ptxas can prove warp-uniform (cons comes from the thread index), so
         * the ring slots and descriptors stay in uniform registers (up to 10% slower and spills
         * otherwise: results/h200/hopper_ws/cons_tiles/pairs_nonuniform.md) */
        tb = __shfl_sync(0xffffffffu, tb, 0);
        ntiles = __shfl_sync(0xffffffffu, ntiles, 0);
        const int lead = ntiles > 0 ? tb - t.tb : t.ntiles;
        skip_tiles(g, lead);
        g += lead;
#else
        const int tb = t.tb, ntiles = t.ntiles;
#endif
        const int m0 = t.m0;
#if UNMASKED_LOOP && OVERLAP == 1
        /* the tiles no row of this consumer masks (absolute indices), from lane 0 as CONS_TILES' range */
        int plain_tiles_lo, plain_tiles_hi;
        {
            const int first = m0 + cons * CONS_ROWS;
            score_mods::unmasked_tiles(p, always_generic, p.kv_offset + first,
                                       p.kv_offset + min(first + CONS_ROWS, p.Nq) - 1, BLOCK_N, plain_tiles_lo,
                                       plain_tiles_hi);
            plain_tiles_lo = __shfl_sync(0xffffffffu, plain_tiles_lo, 0);
            plain_tiles_hi = __shfl_sync(0xffffffffu, plain_tiles_hi, 0);
        }
#endif
        const float slope2 = score_mods::alibi_slope_log2(p, t.h);
        const __half* __restrict__ mask_b = mask + (long long)t.b * Nq * Nkv;

        float oacc[kRT][kON][32];
#pragma unroll
        for (int r = 0; r < kRT; ++r)
#pragma unroll
            for (int j = 0; j < kON; ++j)
#pragma unroll
                for (int i = 0; i < 32; ++i) oacc[r][j][i] = 0.f;
        if (!ITEM_PIPELINE || n_done == 0) reset_rows();

        /* masking and online softmax of row tile r of S (keys n0 ..) of the item whose rows start at
         * im0 (mask_i, slope2_i: its mask rows and ALiBi slope): P packed into A fragments, the row
         * state updated; O must then be scaled by alpha.  may_mask false: no row of the consumer masks
         * the tile (UNMASKED_LOOP's plain loop), so the test is compiled out */
        auto softmax = [&](int r, float (&s)[kSAcc], int n0, [[maybe_unused]] unsigned (&pk)[kPRegs],
                           float (&alpha)[2], int im0, const __half* __restrict__ mask_i, float slope2_i,
                           bool may_mask = true) {
            const int wrow = crow + 64 * r;
            const int w_pos_lo = p.kv_offset + im0 + wrow;
            const int w_pos_hi = p.kv_offset + min(im0 + wrow + 16, Nq) - 1;
            float mul = sl2; /* s * mul is the log2-domain logit */
            if (may_mask && score_mods::tile_needs_mask(p, always_generic, n0, BLOCK_N, w_pos_lo, w_pos_hi)) {
                /* tiles crossing a causal / window / Nkv edge; mask, ALiBi */
                mul = 1.f;
                score_mods::mask_tile<BLOCK_N>(s, p, mask_i, always_generic, slope2_i, sl2, im0 + wrow + lr, n0, lc);
            }
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                float mpart[SOFTMAX_CHAINS];
#pragma unroll
                for (int k = 0; k < SOFTMAX_CHAINS; ++k) mpart[k] = kNegInf;
#pragma unroll
                for (int c = 0; c < kSC; ++c) {
                    float& m = mpart[c % SOFTMAX_CHAINS];
                    m = fmaxf(m, fmaxf(s[4 * c + 2 * hh], s[4 * c + 2 * hh + 1]));
                }
                float mx = mpart[0];
#pragma unroll
                for (int k = 1; k < SOFTMAX_CHAINS; ++k) mx = fmaxf(mx, mpart[k]);
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float m_new = fmaxf(row_m[r][hh], mx * mul);
                const float m_use = (m_new == kNegInf) ? 0.f : m_new;
                alpha[hh] = ex2(row_m[r][hh] - m_use);
                row_m[r][hh] = m_new;
                float lpart[SOFTMAX_CHAINS];
                lpart[0] = row_l[r][hh] * alpha[hh];
#pragma unroll
                for (int k = 1; k < SOFTMAX_CHAINS; ++k) lpart[k] = 0.f;
#pragma unroll
                for (int c = 0; c < kSC; ++c) {
                    const float p0 = ex2(fmaf(s[4 * c + 2 * hh], mul, -m_use));
                    const float p1 = ex2(fmaf(s[4 * c + 2 * hh + 1], mul, -m_use));
                    lpart[c % SOFTMAX_CHAINS] += p0 + p1;
#if LATE_PACK
                    s[4 * c + 2 * hh] = p0, s[4 * c + 2 * hh + 1] = p1; /* packed by pack_p */
#else
                    pk[2 * c + hh] = pack2<elem_t>(p0, p1);
#endif
                }
                float l = lpart[0];
#pragma unroll
                for (int k = 1; k < SOFTMAX_CHAINS; ++k) l += lpart[k];
                row_l[r][hh] = l;
            }
        };

        auto rescale_o = [&](const float (&alpha)[kRT][2]) {
#pragma unroll
            for (int r = 0; r < kRT; ++r)
#pragma unroll
                for (int j = 0; j < kON; ++j)
#pragma unroll
                    for (int c = 0; c < 8; ++c)
#pragma unroll
                        for (int hh = 0; hh < 2; ++hh) {
                            oacc[r][j][4 * c + 2 * hh] *= alpha[r][hh];
                            oacc[r][j][4 * c + 2 * hh + 1] *= alpha[r][hh];
                        }
        };

        /* LATE_PACK: the probabilities the softmax left in S, packed into A fragments */
        [[maybe_unused]] auto pack_p = [&](const float (&s)[kRT][kSAcc], unsigned (&pk)[kRT][kPRegs]) {
#pragma unroll
            for (int r = 0; r < kRT; ++r)
#pragma unroll
                for (int i = 0; i < kPRegs; ++i) pk[r][i] = pack2<elem_t>(s[r][2 * i], s[r][2 * i + 1]);
        };

        auto hold_o = [&]() {
#pragma unroll
            for (int r = 0; r < kRT; ++r)
#pragma unroll
                for (int j = 0; j < kON; ++j) wgmma::hold(oacc[r][j]);
        };

        /* O += P V of the tile in `stage`: issued and committed */
        auto issue_pv = [&](int stage, const unsigned (&pk)[kRT][kPRegs]) {
            const unsigned v_st = sVa + stage * kTileBytes;
            hold_o();
            wgmma::fence();
#pragma unroll
            for (int kk = 0; kk < kPKS; ++kk) {
#pragma unroll
                for (int r = 0; r < kRT; ++r) {
                    /* keys 16 kk .. 16 kk + 15: n8 chunks 2 kk and 2 kk + 1 of S */
                    const unsigned a[4] = {pk[r][4 * kk], pk[r][4 * kk + 1], pk[r][4 * kk + 2], pk[r][4 * kk + 3]};
#pragma unroll
                    for (int j = 0; j < kON; ++j)
                        wgmma::mma_rs<1>(oacc[r][j], a, wgmma::desc_sw128(v_st + j * BLOCK_N * 128 + kk * 16 * 128),
                                         1);
                }
            }
            wgmma::commit();
        };

        /* ---- epilogue of item ti: full row sums, sinks, normalize, store ---- */
        auto store_o = [&](const WorkItem& ti) {
            const float sink2 = p.has_sinks ? sinks[ti.h] * kLog2e : kNegInf;
#if STORE_O_TMA
            /* one 64 x 64 box per row tile and panel, as Q's; rows past Nq are not stored */
            const unsigned o_tile = sOa + cons * CONS_ROWS * HEAD_DIM * 2;
            if (ctid == 0) tma_store_wait_read<0>(); /* the previous item's copies have read the buffer */
            named_bar_sync(kOBarrier + cons, 128);
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                stage_output_rows<elem_t, kON, HEAD_DIM>(oacc[r], row_m[r], row_l[r], sink2, p.has_sinks,
                                                         o_tile + r * kON * kPanel64, 16 * cwarp + lr, lc);
            wgmma::fence_proxy_async(); /* the writes, visible to the async proxy (the copy engine) */
            named_bar_sync(kOBarrier + cons, 128);
            if (ctid == 0) {
#pragma unroll
                for (int r = 0; r < kRT; ++r)
#pragma unroll
                    for (int j = 0; j < kON; ++j)
                        tma_store_3d(&o_map, o_tile + (r * kON + j) * kPanel64, 64 * j, ti.m0 + cons * CONS_ROWS + 64 * r,
                                     ti.b * p.Hq + ti.h);
                tma_store_commit();
            }
#else
            elem_t* __restrict__ og = o + ((long long)(ti.b * p.Hq + ti.h) * Nq) * HEAD_DIM;
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                store_output_rows<elem_t, kON, HEAD_DIM>(oacc[r], row_m[r], row_l[r], sink2, p.has_sinks, og,
                                                         ti.m0 + crow + 64 * r + lr, Nq, lc);
#endif
        };

#if !WS_DYNAMIC_ITEMS
        mbar_wait(&bars.q_full[0], n_done & 1);
#endif

#if PINGPONG
        /* consumer c issues its products after consumer c - 1 (round robin): it waits
         * on barrier 1 + c, then lets the next one go.  The last consumer opens the
         * first turn of each item and skips its last hand-over, so every barrier's
         * arrivals and waits pair up within the item. */
        const int turn_threads = 256;
        const int my_turn = kTurnBarrier + cons;
        const int next_turn = kTurnBarrier + (cons + 1) % kConsumers;
        const bool last_cons = cons == kConsumers - 1;
        if (last_cons && ntiles > 0) named_bar_arrive(kTurnBarrier, turn_threads);
#define WS_TURN_BEGIN() named_bar_sync(my_turn, turn_threads)
#define WS_TURN_END(is_last) \
    if (!(last_cons && (is_last))) named_bar_arrive(next_turn, turn_threads)
#else
#define WS_TURN_BEGIN() ((void)0)
#define WS_TURN_END(is_last) ((void)0)
#endif
#if OVERLAP == 0
        /* each tile: S, wait, softmax, P V, wait (PINGPONG: each product issued in turn,
         * S and P V separately, so the consumers stagger: one's softmax runs while the
         * others' products keep the tensor cores busy) */
        if (ntiles == 0) release(&bars.q_empty[0]);
#pragma unroll 1
        for (int it = 0; it < ntiles; ++it) {
            const int stage = (g + it) % STAGES;
            const unsigned parity = ((g + it) / STAGES) & 1;
            mbar_wait(&bars.k_full[stage], parity);
            float s[kRT][kSAcc];
            WS_TURN_BEGIN();
            issue_s(stage, s, q_st);
            WS_TURN_END(false);
            wgmma::wait<0>();
            s_done(s);
            release_slot(&bars.k_empty[stage]);
            if (it + 1 == ntiles) release(&bars.q_empty[0]); /* the item's last read of Q */
            unsigned pk[kRT][kPRegs];
            float alpha[kRT][2];
#pragma unroll
            for (int r = 0; r < kRT; ++r) softmax(r, s[r], (tb + it) * BLOCK_N, pk[r], alpha[r], m0, mask_b, slope2);
            rescale_o(alpha);
            mbar_wait(&bars.v_full[stage], parity);
            WS_TURN_BEGIN();
            issue_pv(stage, pk);
            WS_TURN_END(it + 1 == ntiles);
            wgmma::wait<0>();
            hold_o();
            release_slot(&bars.v_empty[stage]);
        }
#else
        /* S of tile it + 1 and P V of tile it in flight together; the softmax of
         * tile it + 1 runs while P V still computes.  No wgmma under a run-time
         * branch inside the loop: ptxas serializes every wgmma of the kernel
         * (C7514) when it cannot prove where accumulators are read.
         * ITEM_PIPELINE: after the first item, the end of the item before issued this
         * item's first S and ran its softmax. */
#if ITEM_PIPELINE
        if (n_done == 0 && ntiles > 0) {
#else
        if (ntiles > 0) {
#endif
            const int st = g % STAGES;
            mbar_wait(&bars.k_full[st], (g / STAGES) & 1);
            float s[kRT][kSAcc];
            WS_TURN_BEGIN();
            issue_s(st, s, q_st);
            WS_TURN_END(false);
            wgmma::wait<0>();
            s_done(s);
            release_slot(&bars.k_empty[st]);
            float alpha[kRT][2];
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                softmax(r, s[r], tb * BLOCK_N, pk[r], alpha[r], m0, mask_b, slope2); /* O is 0: alpha unused */
#if LATE_PACK
            pack_p(s, pk);
#endif
        }
        auto overlap_step = [&](int it, bool may_mask) {
            const int gs = g + it + 1, gv = g + it; /* ring tiles of S's K and of P V's V */
            const int st_s = gs % STAGES, st_v = gv % STAGES;
            mbar_wait(&bars.k_full[st_s], (gs / STAGES) & 1);
            mbar_wait(&bars.v_full[st_v], (gv / STAGES) & 1);
            float s[kRT][kSAcc];
            WS_TURN_BEGIN();
            WS_TRACE_AT(0);
            issue_s(st_s, s, q_st);
            issue_pv(st_v, pk);
            WS_TURN_END(false);
            wgmma::wait<1>(); /* S of tile it + 1 (committed first) done */
            WS_TRACE_AT(1);
            s_done(s);
            release_slot(&bars.k_empty[st_s]);
            unsigned pk_next[kRT][kPRegs];
            float alpha[kRT][2];
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                softmax(r, s[r], (tb + it + 1) * BLOCK_N, pk_next[r], alpha[r], m0, mask_b, slope2, may_mask);
            wgmma::wait<0>(); /* P V of tile it done: O and pk free */
            WS_TRACE_AT(2);
#if WS_TRACE
            ++n_traced;
#endif
            hold_o();
            release_slot(&bars.v_empty[st_v]);
            rescale_o(alpha);
#if LATE_PACK
            pack_p(s, pk); /* defined in the loop: no carried copy to disguise */
#else
#pragma unroll
            for (int r = 0; r < kRT; ++r)
#pragma unroll
                for (int i = 0; i < kPRegs; ++i) pk[r][i] = pk_next[r][i] ^ opaque0; /* a real in-loop definition */
#endif
        };
        const int n_iter = max(ntiles - 1, 0);
        int it = 0;
#if UNMASKED_LOOP
        /* iterations plain_lo .. plain_hi - 1 (iteration it: the softmax of tile tb + it + 1) run the
         * step without the mask test, the others (a window's left edge before them; the causal diagonal,
         * a window's right edge and the Nkv edge after them) with it.  Two passes over one loop of each
         * kind rather than three loops: one copy of each step, as NVRTC's time grows with the copies */
        const int plain_lo = min(plain_tiles_lo - tb - 1, n_iter), plain_hi = min(plain_tiles_hi - tb - 1, n_iter);
#pragma unroll 1
        for (int pass = 0; pass < 2; ++pass) {
            const int masked_end = pass == 0 ? plain_lo : n_iter;
#pragma unroll 1
            for (; it < masked_end; ++it) overlap_step(it, true);
            const int plain_end = pass == 0 ? plain_hi : 0;
#pragma unroll 1
            for (; it < plain_end; ++it) overlap_step(it, false);
        }
#else
#pragma unroll 1
        for (; it < n_iter; ++it) overlap_step(it, true);
#endif
        /* every S of the item retired: the producer may refill its Q buffer */
        release(&bars.q_empty[n_done % kQBufs]);
#if ITEM_PIPELINE
        /* The next item (its Q announced in the other buffer): its first S goes out with this
         * item's last P V, and O is stored while that S computes.  Each path below is straight
         * wgmma code: with the products under separate run-time branches ptxas cannot tell which
         * group a wait retires, waits for all (C7517) and serializes every wgmma (C7512). */
        const int w_next = item_index(n_done + 1);
        const WorkItem tn = work_item(p, w_next < n_items ? w_next : w, rank);
        const bool next_s = w_next < n_items && tn.ntiles > 0;
        const int gn = g + ntiles, gv = gn - 1; /* ring tiles of the next item's first K, of the last V */
        /* the next item's first softmax, on S in s_next (O is 0 then: alpha unused) */
        auto first_softmax = [&](float (&s_next)[kRT][kSAcc]) {
            const float slope2_n = score_mods::alibi_slope_log2(p, tn.h);
            const __half* __restrict__ mask_n = mask + (long long)tn.b * Nq * Nkv;
            float alpha[kRT][2];
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                softmax(r, s_next[r], tn.tb * BLOCK_N, pk[r], alpha[r], tn.m0, mask_n, slope2_n);
#if LATE_PACK
            pack_p(s_next, pk);
#endif
        };
        if (ntiles > 0 && next_s) {
            mbar_wait(&bars.v_full[gv % STAGES], (gv / STAGES) & 1);
            mbar_wait(&bars.k_full[gn % STAGES], (gn / STAGES) & 1);
            float s_next[kRT][kSAcc];
            WS_TURN_BEGIN(); /* PINGPONG: this item's last turn carries the next item's first S */
            issue_pv(gv % STAGES, pk);
            issue_s(gn % STAGES, s_next, sQa + ((n_done + 1) % kQBufs) * kQBytes);
            WS_TURN_END(true);
            wgmma::wait<1>(); /* the P V (committed first) done */
            hold_o();
            release_slot(&bars.v_empty[gv % STAGES]);
            store_o(t);
            reset_rows();
            wgmma::wait<0>();
            s_done(s_next);
            release_slot(&bars.k_empty[gn % STAGES]);
            first_softmax(s_next);
        } else { /* the last item, or no keys on one side of the boundary: one product at a time */
            if (ntiles > 0) {
                mbar_wait(&bars.v_full[gv % STAGES], (gv / STAGES) & 1);
                WS_TURN_BEGIN();
                issue_pv(gv % STAGES, pk);
                WS_TURN_END(true);
                wgmma::wait<0>();
                hold_o();
                release_slot(&bars.v_empty[gv % STAGES]);
            }
            store_o(t);
            reset_rows();
            if (next_s) {
                mbar_wait(&bars.k_full[gn % STAGES], (gn / STAGES) & 1);
                float s_next[kRT][kSAcc];
                issue_s(gn % STAGES, s_next, sQa + ((n_done + 1) % kQBufs) * kQBytes);
                wgmma::wait<0>();
                s_done(s_next);
                release_slot(&bars.k_empty[gn % STAGES]);
                first_softmax(s_next);
            }
        }
        g = gn;
        ++n_done;
        w = w_next;
#else
        if (ntiles > 0) { /* P V of the last tile */
            const int gv = g + ntiles - 1, st_v = gv % STAGES;
            mbar_wait(&bars.v_full[st_v], (gv / STAGES) & 1);
            WS_TURN_BEGIN();
            issue_pv(st_v, pk);
            WS_TURN_END(true);
            wgmma::wait<0>();
            hold_o();
            release_slot(&bars.v_empty[st_v]);
        }
#endif
#endif
#undef WS_TURN_BEGIN
#undef WS_TURN_END
#undef WS_TRACE_AT
#if !ITEM_PIPELINE
        g += ntiles;
#if CLUSTER == 2
        skip_tiles(g, t.ring_tiles - t.skip - ntiles);
        g += t.ring_tiles - t.skip - ntiles;
#endif
        store_o(t);
#if CONS_TILES
        {   /* the item's tiles after this consumer's, after O is stored and from the item's range
             * again, so that nothing more is held across the loop (3 consumers of 64 rows: 128 registers) */
            int item_tb, item_ntiles;
            score_mods::kv_tile_range(p, m0, kBlockM, BLOCK_N, item_tb, item_ntiles);
            const int trail = ntiles > 0 ? item_tb + item_ntiles - tb - ntiles : 0;
            skip_tiles(g, trail);
            g += trail;
        }
#endif
        ++n_done;
        w = item_index(n_done);
#endif
    }
#if STORE_O_TMA
    if (ctid == 0) tma_store_wait<0>(); /* the last O copies are done before the block's memory goes */
#endif
#if CLUSTER == 2
    cluster_sync(); /* no block leaves while its peer may still arrive on its barriers */
#endif
}

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


/* ---------------------------------------------------------------- scheduler */
/* The work items of this block (of its cluster): item_index(0), item_index(1), ... while < n_items */
struct Schedule {
    int n_items, w_first, w_step;
};

__device__ __forceinline__ Schedule block_schedule(const attn_params& p) {
    Schedule s;
#if PERSISTENT
    s.n_items = (((p.Nq + kBlockM - 1) / kBlockM + kCluster - 1) / kCluster) * p.Hq * p.B;
    s.w_first = blockIdx.x / kCluster;
    s.w_step = gridDim.x / kCluster;
#else
    (void)p;
    s.n_items = 1, s.w_first = 0, s.w_step = 1;
#endif
    return s;
}

/* The producer's item n.  WS_DYNAMIC_ITEMS: the first is the block's own, the next ones come from the
 * workspace's counter (items_taken); an index past the items ends the loop (n_items), whatever the
 * counter holds */
__device__ __forceinline__ int producer_item(const Schedule& s, int n, [[maybe_unused]] unsigned* items_taken) {
#if WS_DYNAMIC_ITEMS
    if (n == 0) return s.w_first;
    const unsigned taken = atomicAdd(items_taken, 1u);
    return taken < (unsigned)(s.n_items - s.w_step) ? s.w_step + (int)taken : s.n_items;
#else
    return s.w_first + n * s.w_step;
#endif
}

/* The consumers' item n.  WS_DYNAMIC_ITEMS: the producer announces it with its Q: wait for it, then
 * read which item it is */
__device__ __forceinline__ int consumer_item(const Schedule& s, [[maybe_unused]] Barriers& bars, int n) {
#if WS_DYNAMIC_ITEMS
    mbar_wait(&bars.q_full[n % kQBufs], (n / kQBufs) & 1);
    return *static_cast<volatile int*>(&bars.item[n % kQBufs]);
#else
    return s.w_first + n * s.w_step;
#endif
}

/* WS_DYNAMIC_ITEMS, after the producer's last item (n_done of them): the consumers read n_items once
 * they are done with the buffer's last Q; the last block to come here resets the counter for the
 * next launch (every block has taken its last index then) */
__device__ __forceinline__ void producer_items_done([[maybe_unused]] const Schedule& s, [[maybe_unused]] Barriers& bars,
                                                    [[maybe_unused]] int n_done,
                                                    [[maybe_unused]] unsigned* items_taken) {
#if WS_DYNAMIC_ITEMS
    const int qb = n_done % kQBufs;
    if (n_done >= kQBufs) mbar_wait(&bars.q_empty[qb], (n_done / kQBufs - 1) & 1);
    bars.item[qb] = s.n_items;
    mbar_arrive(&bars.q_full[qb]);
    unsigned* const blocks_done = items_taken + 1;
    if (atomicAdd(blocks_done, 1u) == gridDim.x - 1) {
        atomicExch(items_taken, 0u);
        atomicExch(blocks_done, 0u);
    }
#endif
}

/* ------------------------------------------------------- block setup and exit */
/* shared-memory tiles; panels start on 1024-byte boundaries (the swizzle atom) */
struct SmemLayout {
    unsigned q; /* kQBufs Q tiles */
    unsigned k, v; /* STAGES K tiles, STAGES V tiles */
    unsigned o; /* STORE_O_TMA: consumer c's O rows from c * CONS_ROWS */
};

__device__ __forceinline__ SmemLayout smem_layout(const unsigned char* raw) {
    SmemLayout sm;
    sm.q = (smem_addr(raw) + 1023u) & ~1023u;
    sm.k = sm.q + kQBufs * kQBytes;
    sm.v = sm.k + STAGES * kTileBytes;
    sm.o = sm.v + STAGES * kTileBytes;
    return sm;
}

/* thread 0 initialises the barriers; every thread of the block (CLUSTER 2: of the cluster) waits for it,
 * so the peer's barriers are initialised before any copy or arrival reaches them */
__device__ __forceinline__ void init_barriers(Barriers& bars, int tid) {
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
    cluster_sync();
#else
    __syncthreads();
#endif
}

/* CLUSTER 2: no block leaves while its peer may still arrive on its barriers */
__device__ __forceinline__ void cluster_exit() {
#if CLUSTER == 2
    cluster_sync();
#endif
}

__device__ __forceinline__ int cluster_rank() {
#if CLUSTER == 2
    return (int)cluster_ctarank();
#else
    return 0;
#endif
}

/* ----------------------------------------------------------------- producer */
/* Q of item w (t; the n_done-th of the block) into buffer n_done % kQBufs, which is free once every
 * consumer's last S of its previous item retired */
__device__ __forceinline__ void produce_q(Barriers& bars, const SmemLayout& sm, const tensor_map* q_map,
                                          const WorkItem& t, [[maybe_unused]] int w, int n_done, int q_head) {
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
            tma_load_3d(sm.q + qb * kQBytes + (rt * kON + c) * kPanel64, q_map, 64 * c, t.m0 + 64 * rt, q_head,
                        &bars.q_full[qb]);
}

/* This block's rows n0 .. of one K or V tile into the ring slot at dst, once its previous tile was
 * released (wait_empty: the slot held one; parity: that release).  CLUSTER 2: half of the tile's rows,
 * multicast to both blocks (the peer's consumers released the slot too) */
__device__ __forceinline__ void produce_tile(unsigned long long* empty, unsigned long long* full, bool wait_empty,
                                             unsigned parity, unsigned dst, const tensor_map* map, int n0,
                                             int kv_head) {
#if CLUSTER == 2
    if (wait_empty) mbar_wait_cluster(empty, parity);
    mbar_arrive_expect_tx(full, kTileBytes);
#pragma unroll
    for (int c = 0; c < kON; ++c) tma_load_3d_multicast(dst + c * BLOCK_N * 128, map, 64 * c, n0, kv_head, full, 0x3);
#else
    if (wait_empty) mbar_wait(empty, parity);
    mbar_arrive_expect_tx(full, kTileBytes);
#pragma unroll
    for (int c = 0; c < kON; ++c) tma_load_3d(dst + c * BLOCK_N * 128, map, 64 * c, n0, kv_head, full);
#endif
}

/* The producer (one thread): each item's Q, then its ring tiles' K and V as slots free up */
__device__ __forceinline__ void producer(const attn_params& p, Barriers& bars, const SmemLayout& sm,
                                        const Schedule& sched, int rank, float* wsp, const tensor_map* q_map,
                                        const tensor_map* k_map, const tensor_map* v_map) {
    tma_prefetch_map(q_map);
    tma_prefetch_map(k_map);
    tma_prefetch_map(v_map);
    unsigned* const items_taken = reinterpret_cast<unsigned*>(wsp); /* items handed out after the first wave */
    int g = 0; /* ring tiles issued so far (over every item): slot g % STAGES */
    int n_done = 0;
#pragma unroll 1
    for (int w = producer_item(sched, 0, items_taken); w < sched.n_items;
         ++n_done, w = producer_item(sched, n_done, items_taken)) {
        const WorkItem t = work_item(p, w, rank);
        const int q_head = t.b * p.Hq + t.h, kv_head = t.b * p.Hkv + t.h / p.q_per_kv;
        produce_q(bars, sm, q_map, t, w, n_done, q_head);
#pragma unroll 1
        for (int it = 0; it < t.ring_tiles; ++it, ++g) {
            const int stage = g % STAGES;
            const unsigned parity = ((g / STAGES) & 1) ^ 1; /* the release of ring tile g - STAGES */
            const int n0 = (t.ring_tb + it) * BLOCK_N + rank * kSliceRows;
            const unsigned slice = stage * kTileBytes + rank * kSliceRows * 128;
            produce_tile(&bars.k_empty[stage], &bars.k_full[stage], g >= STAGES, parity, sm.k + slice, k_map, n0,
                         kv_head);
            produce_tile(&bars.v_empty[stage], &bars.v_full[stage], g >= STAGES, parity, sm.v + slice, v_map, n0,
                         kv_head);
        }
    }
    producer_items_done(sched, bars, n_done, items_taken);
}

/* ------------------------------------------------------- consumer's helpers */
using STile = float[kRT][kSAcc];   /* S (then P, LATE_PACK) of one tile, per row tile */
using PFrag = unsigned[kRT][kPRegs]; /* P packed into A fragments */
using OAcc = float[kRT][kON][32];  /* O, per row tile and 64-column piece */

/* the row state (max, sum) of each row's online softmax (online_softmax.cuh) */
struct RowState {
    float m[kRT][2], l[kRT][2];
    __device__ __forceinline__ void reset() {
#pragma unroll
        for (int r = 0; r < kRT; ++r) m[r][0] = m[r][1] = kNegInf, l[r][0] = l[r][1] = 0.f;
    }
};

/* PINGPONG: consumer c issues its products after consumer c - 1 (round robin): it waits on barrier
 * 1 + c, then lets the next one go.  The last consumer opens the first turn of each item and skips
 * its last hand-over, so every barrier's arrivals and waits pair up within the item.  Without
 * PINGPONG: nothing. */
struct Turns {
#if PINGPONG
    static constexpr int kThreadsPerTurn = 256;
    int my_turn, next_turn;
    bool last_cons;
#endif
    __device__ __forceinline__ Turns([[maybe_unused]] int cons, [[maybe_unused]] int ntiles) {
#if PINGPONG
        my_turn = kTurnBarrier + cons;
        next_turn = kTurnBarrier + (cons + 1) % kConsumers;
        last_cons = cons == kConsumers - 1;
        if (last_cons && ntiles > 0) named_bar_arrive(kTurnBarrier, kThreadsPerTurn);
#endif
    }
    __device__ __forceinline__ void begin() const {
#if PINGPONG
        named_bar_sync(my_turn, kThreadsPerTurn);
#endif
    }
    __device__ __forceinline__ void end([[maybe_unused]] bool is_last) const {
#if PINGPONG
        if (!(last_cons && is_last)) named_bar_arrive(next_turn, kThreadsPerTurn);
#endif
    }
};

/* WS_TRACE: the first thread of each consumer warpgroup of block 0 records 3 clocks per loop
 * iteration (issue, S retired, P V retired; kTraceIters iterations).  Otherwise: nothing. */
struct Trace {
#if WS_TRACE
    static constexpr int kTraceIters = 2048;
    unsigned long long* trace;
    int n_traced;
#endif
    __device__ __forceinline__ Trace([[maybe_unused]] float* wsp, [[maybe_unused]] int ctid,
                                     [[maybe_unused]] int cons) {
#if WS_TRACE
        trace = ctid == 0 && blockIdx.x + blockIdx.y + blockIdx.z == 0
                    ? reinterpret_cast<unsigned long long*>(wsp + 4) + cons * 3 * kTraceIters
                    : nullptr;
        n_traced = 0;
#endif
    }
    __device__ __forceinline__ void at([[maybe_unused]] int what) {
#if WS_TRACE
        if (trace && n_traced < kTraceIters) trace[3 * n_traced + what] = clock64();
#endif
    }
    __device__ __forceinline__ void next() {
#if WS_TRACE
        ++n_traced;
#endif
    }
};

/* The keys one consumer's rows attend in an item: KV tiles tb .. tb + ntiles - 1; the mask rows and
 * ALiBi slope of its head; its Q buffer */
struct ItemRows {
    int m0, tb, ntiles;
    const __half* __restrict__ mask_b;
    float slope2;
    unsigned q_st;
};

/* One consumer warpgroup's thread: its place in the block and the products, softmax and stores on
 * its rows */
struct Consumer {
    const attn_params& p;
    Barriers& bars;
    const SmemLayout sm;
    const int rank, cons, ctid, cwarp, lane, crow, lr, lc;
    const bool warp_leader, always_generic;
    const float sl2;
    /* 0 at run time, unknown to the compiler: the P carried across iterations is XOR-ed with it so
     * ptxas sees an in-loop definition (docs/kernels/flash_attn_fwd_wgmma.md) */
    const unsigned opaque0;

    __device__ __forceinline__ Consumer(const attn_params& p_, Barriers& bars_, const SmemLayout& sm_, int tid,
                                        int rank_)
        : p(p_),
          bars(bars_),
          sm(sm_),
          rank(rank_),
          cons((tid >> 7) - 1),
          ctid(tid & 127),
          cwarp((tid & 127) >> 5),
          lane(tid & 31),
          /* block row of this warp's first row in row tile rt: cons * CONS_ROWS + 64 rt + 16 cwarp */
          crow(((tid >> 7) - 1) * CONS_ROWS + 16 * ((tid & 127) >> 5)),
          lr((tid & 31) >> 2), /* accumulator row (and +8) */
          lc(((tid & 31) & 3) * 2), /* column pair */
          warp_leader((tid & 31) == 0),
          always_generic(p_.has_mask || p_.max_bias > 0.f),
          sl2(p_.scale * kLog2e),
          opaque0((unsigned)p_.Nq >> 31) {}

    /* ---- ring slots ---- */
    /* the warp is done reading Q (its wgmma retired): one arrival per warp */
    __device__ __forceinline__ void release(unsigned long long* bar) const {
        __syncwarp();
        if (warp_leader) mbar_arrive(bar);
    }
    /* ... a K or V ring slot: one arrival per warp on it in every block of the cluster */
    __device__ __forceinline__ void release_slot(unsigned long long* bar) const {
        __syncwarp();
        if (warp_leader) {
            mbar_arrive(bar);
#if CLUSTER == 2
            mbar_arrive_cluster(bar, rank ^ 1);
#endif
        }
    }
    /* ring tiles g0 .. g0 + n - 1 whose keys this block's (CONS_TILES: this consumer's) rows do not
     * attend: waited for (both blocks' copies landed in this block's slot) and released */
    __device__ __forceinline__ void skip_tiles(int g0, int n) const {
#pragma unroll 1
        for (int i = g0; i < g0 + n; ++i) {
            mbar_wait(&bars.k_full[i % STAGES], (i / STAGES) & 1);
            mbar_wait(&bars.v_full[i % STAGES], (i / STAGES) & 1);
            release_slot(&bars.k_empty[i % STAGES]);
            release_slot(&bars.v_empty[i % STAGES]);
        }
    }

    /* ---- which tiles ---- */
    /* The rows and tiles of item t this consumer works on; the ring tiles before them (CLUSTER 2: the
     * pair's that this block's rows do not attend; CONS_TILES: the item's that this consumer's do not)
     * skipped, g advanced past them */
    __device__ __forceinline__ ItemRows item_rows(const WorkItem& t, int& g, unsigned q_st) const {
        ItemRows ir;
#if CLUSTER == 2
        skip_tiles(g, t.skip);
        g += t.skip;
#endif
#if CONS_TILES
        score_mods::kv_tile_range(p, t.m0 + cons * CONS_ROWS, CONS_ROWS, BLOCK_N, ir.tb, ir.ntiles);
        /* from lane 0: values ptxas can prove warp-uniform (cons comes from the thread index), so the
         * ring slots and descriptors stay in uniform registers (up to 10% slower and spills otherwise:
         * results/h200/hopper_ws/cons_tiles/pairs_nonuniform.md) */
        ir.tb = __shfl_sync(0xffffffffu, ir.tb, 0);
        ir.ntiles = __shfl_sync(0xffffffffu, ir.ntiles, 0);
        const int lead = ir.ntiles > 0 ? ir.tb - t.tb : t.ntiles;
        skip_tiles(g, lead);
        g += lead;
#else
        ir.tb = t.tb, ir.ntiles = t.ntiles;
#endif
        ir.m0 = t.m0;
        ir.slope2 = score_mods::alibi_slope_log2(p, t.h);
        ir.q_st = q_st;
        return ir;
    }

    /* CLUSTER 2, after this block's tiles of item t (g past them): the pair's tiles after them */
    __device__ __forceinline__ void skip_pair_tail([[maybe_unused]] const WorkItem& t, [[maybe_unused]] int& g,
                                                   [[maybe_unused]] int ntiles) const {
#if CLUSTER == 2
        skip_tiles(g, t.ring_tiles - t.skip - ntiles);
        g += t.ring_tiles - t.skip - ntiles;
#endif
    }

    /* CONS_TILES, after O is stored: the item's tiles after this consumer's, from the item's range
     * again, so that nothing more is held across the loop (3 consumers of 64 rows: 128 registers) */
    __device__ __forceinline__ void skip_item_tail([[maybe_unused]] const ItemRows& ir, [[maybe_unused]] int& g) const {
#if CONS_TILES
        int item_tb, item_ntiles;
        score_mods::kv_tile_range(p, ir.m0, kBlockM, BLOCK_N, item_tb, item_ntiles);
        const int trail = ir.ntiles > 0 ? item_tb + item_ntiles - ir.tb - ir.ntiles : 0;
        skip_tiles(g, trail);
        g += trail;
#endif
    }

    /* UNMASKED_LOOP: the tiles no row of this consumer masks (absolute indices lo .. hi - 1), from lane 0
     * as CONS_TILES' range */
    __device__ __forceinline__ void plain_tiles(int m0, int& lo, int& hi) const {
        const int first = m0 + cons * CONS_ROWS;
        score_mods::unmasked_tiles(p, always_generic, p.kv_offset + first, p.kv_offset + min(first + CONS_ROWS, p.Nq) - 1,
                                   BLOCK_N, lo, hi);
        lo = __shfl_sync(0xffffffffu, lo, 0);
        hi = __shfl_sync(0xffffffffu, hi, 0);
    }

    /* ---- S = Q K^T ---- */
    /* S of the tile in `stage` for every row tile, Q from the buffer at q_st: issued and committed
     * (one m64n{BLOCK_N}k16 per k-step and row tile: BLOCK_N / 64 n64 pieces would each read Q from
     * shared memory again, and with both operands there they ask for all the bandwidth it has, which
     * the K / V copies and P V's reads of V share: docs/kernels/flash_attn_fwd_ws.md, "S in one
     * instruction") */
    __device__ __forceinline__ void issue_s(int stage, STile& s, unsigned q_st) const {
        const unsigned k_st = sm.k + stage * kTileBytes;
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
    }

    static __device__ __forceinline__ void s_done(STile& s) {
#pragma unroll
        for (int r = 0; r < kRT; ++r) wgmma::hold(s[r]);
    }

    /* ---- online softmax ---- */
    /* Masking and online softmax of row tile r of S (keys n0 ..) of the item whose rows start at im0
     * (mask_i, slope2_i: its mask rows and ALiBi slope): P packed into A fragments (LATE_PACK: left in
     * s as floats), the row state updated; O must then be scaled by alpha.  may_mask false: no row of
     * the consumer masks the tile (UNMASKED_LOOP's plain loop), so the test is compiled out */
    __device__ __forceinline__ void softmax(RowState& rows, int r, float (&s)[kSAcc], int n0,
                                            [[maybe_unused]] unsigned (&pk)[kPRegs], float (&alpha)[2], int im0,
                                            const __half* __restrict__ mask_i, float slope2_i,
                                            bool may_mask = true) const {
        const int wrow = crow + 64 * r;
        const int w_pos_lo = p.kv_offset + im0 + wrow;
        const int w_pos_hi = p.kv_offset + min(im0 + wrow + 16, p.Nq) - 1;
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
            const float m_use = online_softmax::advance_max(rows.m[r][hh], online_softmax::quad_max(mx) * mul, alpha[hh]);
            float lpart[SOFTMAX_CHAINS];
            lpart[0] = rows.l[r][hh] * alpha[hh];
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
            rows.l[r][hh] = l;
        }
    }

    /* ... of every row tile of S of tile n0 of item ir */
    __device__ __forceinline__ void softmax_tile(RowState& rows, STile& s, int n0, PFrag& pk, float (&alpha)[kRT][2],
                                                 const ItemRows& ir, bool may_mask = true) const {
#pragma unroll
        for (int r = 0; r < kRT; ++r) softmax(rows, r, s[r], n0, pk[r], alpha[r], ir.m0, ir.mask_b, ir.slope2, may_mask);
    }

    static __device__ __forceinline__ void rescale_o(OAcc& oacc, const float (&alpha)[kRT][2]) {
#pragma unroll
        for (int r = 0; r < kRT; ++r)
#pragma unroll
            for (int j = 0; j < kON; ++j) online_softmax::rescale(oacc[r][j], alpha[r]);
    }

    /* LATE_PACK: the probabilities the softmax left in S, packed into A fragments */
    static __device__ __forceinline__ void pack_p(const STile& s, PFrag& pk) {
#pragma unroll
        for (int r = 0; r < kRT; ++r)
#pragma unroll
            for (int i = 0; i < kPRegs; ++i) pk[r][i] = pack2<elem_t>(s[r][2 * i], s[r][2 * i + 1]);
    }

    /* ---- O += P V ---- */
    static __device__ __forceinline__ void hold_o(OAcc& oacc) {
#pragma unroll
        for (int r = 0; r < kRT; ++r)
#pragma unroll
            for (int j = 0; j < kON; ++j) wgmma::hold(oacc[r][j]);
    }

    /* O += P V of the tile in `stage`: issued and committed */
    __device__ __forceinline__ void issue_pv(OAcc& oacc, int stage, const PFrag& pk) const {
        const unsigned v_st = sm.v + stage * kTileBytes;
        hold_o(oacc);
        wgmma::fence();
#pragma unroll
        for (int kk = 0; kk < kPKS; ++kk) {
#pragma unroll
            for (int r = 0; r < kRT; ++r) {
                /* keys 16 kk .. 16 kk + 15: n8 chunks 2 kk and 2 kk + 1 of S */
                const unsigned a[4] = {pk[r][4 * kk], pk[r][4 * kk + 1], pk[r][4 * kk + 2], pk[r][4 * kk + 3]};
#pragma unroll
                for (int j = 0; j < kON; ++j)
                    wgmma::mma_rs<1>(oacc[r][j], a, wgmma::desc_sw128(v_st + j * BLOCK_N * 128 + kk * 16 * 128), 1);
            }
        }
        wgmma::commit();
    }

    /* ---- epilogue ---- */
    /* Item ti's O: full row sums, sinks, normalize, store (STORE_O_TMA: to this consumer's buffer, then
     * one 64 x 64 box per row tile and panel by TMA, as Q's; rows past Nq are not stored) */
    __device__ __forceinline__ void store_o(const OAcc& oacc, const RowState& rows, const WorkItem& ti,
                                            const float* __restrict__ sinks, [[maybe_unused]] elem_t* __restrict__ o,
                                            [[maybe_unused]] const tensor_map* o_map) const {
        const float sink2 = p.has_sinks ? sinks[ti.h] * kLog2e : kNegInf;
#if STORE_O_TMA
        const unsigned o_tile = sm.o + cons * CONS_ROWS * HEAD_DIM * 2;
        if (ctid == 0) tma_store_wait_read<0>(); /* the previous item's copies have read the buffer */
        named_bar_sync(kOBarrier + cons, 128);
#pragma unroll
        for (int r = 0; r < kRT; ++r)
            stage_output_rows<elem_t, kON, HEAD_DIM>(oacc[r], rows.m[r], rows.l[r], sink2, p.has_sinks,
                                                     o_tile + r * kON * kPanel64, 16 * cwarp + lr, lc);
        wgmma::fence_proxy_async(); /* the writes, visible to the async proxy (the copy engine) */
        named_bar_sync(kOBarrier + cons, 128);
        if (ctid == 0) {
#pragma unroll
            for (int r = 0; r < kRT; ++r)
#pragma unroll
                for (int j = 0; j < kON; ++j)
                    tma_store_3d(o_map, o_tile + (r * kON + j) * kPanel64, 64 * j, ti.m0 + cons * CONS_ROWS + 64 * r,
                                 ti.b * p.Hq + ti.h);
            tma_store_commit();
        }
#else
        elem_t* __restrict__ og = o + ((long long)(ti.b * p.Hq + ti.h) * p.Nq) * HEAD_DIM;
#pragma unroll
        for (int r = 0; r < kRT; ++r)
            store_output_rows<elem_t, kON, HEAD_DIM>(oacc[r], rows.m[r], rows.l[r], sink2, p.has_sinks, og,
                                                     ti.m0 + crow + 64 * r + lr, p.Nq, lc);
#endif
    }

    /* STORE_O_TMA: the last O copies are done before the block's memory goes */
    __device__ __forceinline__ void stores_done() const {
#if STORE_O_TMA
        if (ctid == 0) tma_store_wait<0>();
#endif
    }
};

/* ------------------------------------------------------------ tile pipelines */
#if OVERLAP == 0
/* Each tile of item ir: S, wait, softmax, P V, wait (PINGPONG: each product issued in turn, S and P V
 * separately, so the consumers stagger: one's softmax runs while the others' products keep the
 * tensor cores busy).  g: the item's first ring tile. */
__device__ __forceinline__ void serial_tiles(const Consumer& c, RowState& rows, OAcc& oacc, const ItemRows& ir, int g,
                                             const Turns& turns) {
    if (ir.ntiles == 0) c.release(&c.bars.q_empty[0]);
#pragma unroll 1
    for (int it = 0; it < ir.ntiles; ++it) {
        const int stage = (g + it) % STAGES;
        const unsigned parity = ((g + it) / STAGES) & 1;
        mbar_wait(&c.bars.k_full[stage], parity);
        STile s;
        turns.begin();
        c.issue_s(stage, s, ir.q_st);
        turns.end(false);
        wgmma::wait<0>();
        Consumer::s_done(s);
        c.release_slot(&c.bars.k_empty[stage]);
        if (it + 1 == ir.ntiles) c.release(&c.bars.q_empty[0]); /* the item's last read of Q */
        PFrag pk;
        float alpha[kRT][2];
        c.softmax_tile(rows, s, (ir.tb + it) * BLOCK_N, pk, alpha, ir);
        Consumer::rescale_o(oacc, alpha);
        mbar_wait(&c.bars.v_full[stage], parity);
        turns.begin();
        c.issue_pv(oacc, stage, pk);
        turns.end(it + 1 == ir.ntiles);
        wgmma::wait<0>();
        Consumer::hold_o(oacc);
        c.release_slot(&c.bars.v_empty[stage]);
    }
}
#else
/* OVERLAP 1: S of tile it + 1 and P V of tile it in flight together; the softmax of tile it + 1 runs
 * while P V still computes.  No wgmma under a run-time branch inside the loop: ptxas serializes every
 * wgmma of the kernel (C7514) when it cannot prove where accumulators are read. */

/* The item's first S (ring tile g) and its softmax (O is 0: alpha unused), into pk */
__device__ __forceinline__ void first_tile(const Consumer& c, RowState& rows, PFrag& pk, const ItemRows& ir, int g,
                                           const Turns& turns) {
    const int st = g % STAGES;
    mbar_wait(&c.bars.k_full[st], (g / STAGES) & 1);
    STile s;
    turns.begin();
    c.issue_s(st, s, ir.q_st);
    turns.end(false);
    wgmma::wait<0>();
    Consumer::s_done(s);
    c.release_slot(&c.bars.k_empty[st]);
    float alpha[kRT][2];
    c.softmax_tile(rows, s, ir.tb * BLOCK_N, pk, alpha, ir);
#if LATE_PACK
    Consumer::pack_p(s, pk);
#endif
}

/* Iteration it: S of tile it + 1 with P V of tile it (P in pk), then the softmax of tile it + 1 under
 * the P V; pk becomes its P.  g: the item's first ring tile */
__device__ __forceinline__ void overlap_step(const Consumer& c, RowState& rows, OAcc& oacc, PFrag& pk,
                                             const ItemRows& ir, int g, int it, bool may_mask, const Turns& turns,
                                             Trace& trace) {
    const int gs = g + it + 1, gv = g + it; /* ring tiles of S's K and of P V's V */
    const int st_s = gs % STAGES, st_v = gv % STAGES;
    mbar_wait(&c.bars.k_full[st_s], (gs / STAGES) & 1);
    mbar_wait(&c.bars.v_full[st_v], (gv / STAGES) & 1);
    STile s;
    turns.begin();
    trace.at(0);
    c.issue_s(st_s, s, ir.q_st);
    c.issue_pv(oacc, st_v, pk);
    turns.end(false);
    wgmma::wait<1>(); /* S of tile it + 1 (committed first) done */
    trace.at(1);
    Consumer::s_done(s);
    c.release_slot(&c.bars.k_empty[st_s]);
    PFrag pk_next;
    float alpha[kRT][2];
    c.softmax_tile(rows, s, (ir.tb + it + 1) * BLOCK_N, pk_next, alpha, ir, may_mask);
    wgmma::wait<0>(); /* P V of tile it done: O and pk free */
    trace.at(2);
    trace.next();
    Consumer::hold_o(oacc);
    c.release_slot(&c.bars.v_empty[st_v]);
    Consumer::rescale_o(oacc, alpha);
#if LATE_PACK
    Consumer::pack_p(s, pk); /* defined in the loop: no carried copy to disguise */
#else
#pragma unroll
    for (int r = 0; r < kRT; ++r)
#pragma unroll
        for (int i = 0; i < kPRegs; ++i) pk[r][i] = pk_next[r][i] ^ c.opaque0; /* a real in-loop definition */
#endif
}

/* Iterations 0 .. ntiles - 2 of item ir.  UNMASKED_LOOP: iterations plain_lo .. plain_hi - 1 (iteration
 * it: the softmax of tile tb + it + 1; plain_tiles_*: absolute tile indices) run the step without the
 * mask test, the others (a window's left edge before them; the causal diagonal, a window's right edge
 * and the Nkv edge after them) with it.  Two passes over one loop of each kind rather than three
 * loops: one copy of each step, as NVRTC's time grows with the copies */
__device__ __forceinline__ void overlap_tiles(const Consumer& c, RowState& rows, OAcc& oacc, PFrag& pk,
                                              const ItemRows& ir, int g, [[maybe_unused]] int plain_tiles_lo,
                                              [[maybe_unused]] int plain_tiles_hi, const Turns& turns, Trace& trace) {
    const int n_iter = max(ir.ntiles - 1, 0);
    int it = 0;
#if UNMASKED_LOOP
    const int plain_lo = min(plain_tiles_lo - ir.tb - 1, n_iter), plain_hi = min(plain_tiles_hi - ir.tb - 1, n_iter);
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
        const int masked_end = pass == 0 ? plain_lo : n_iter;
#pragma unroll 1
        for (; it < masked_end; ++it) overlap_step(c, rows, oacc, pk, ir, g, it, true, turns, trace);
        const int plain_end = pass == 0 ? plain_hi : 0;
#pragma unroll 1
        for (; it < plain_end; ++it) overlap_step(c, rows, oacc, pk, ir, g, it, false, turns, trace);
    }
#else
#pragma unroll 1
    for (; it < n_iter; ++it) overlap_step(c, rows, oacc, pk, ir, g, it, true, turns, trace);
#endif
}

/* P V of the item's last tile (ring tile gv), alone */
__device__ __forceinline__ void last_pv(const Consumer& c, OAcc& oacc, const PFrag& pk, int gv, const Turns& turns) {
    mbar_wait(&c.bars.v_full[gv % STAGES], (gv / STAGES) & 1);
    turns.begin();
    c.issue_pv(oacc, gv % STAGES, pk);
    turns.end(true);
    wgmma::wait<0>();
    Consumer::hold_o(oacc);
    c.release_slot(&c.bars.v_empty[gv % STAGES]);
}
#endif

/* ------------------------------------------------------------------ consumer */
/* One consumer warpgroup: for each item, S, softmax and P V over its tiles, then the epilogue */
__device__ __forceinline__ void consumer(const Consumer& c, const Schedule& sched, const __half* __restrict__ mask,
                                        const float* __restrict__ sinks, elem_t* __restrict__ o,
                                        const tensor_map* o_map, float* wsp) {
    const attn_params& p = c.p;
    Trace trace(wsp, c.ctid, c.cons);
    int g = 0; /* ring tiles consumed so far (over every item), as the producer counts them */
    int n_done = 0;
    /* ITEM_PIPELINE carries the next item's row state (its first softmax runs at the end of the item
     * before it) */
    RowState rows;
#if OVERLAP == 1
    PFrag pk; /* P of the tile whose P V comes next */
#endif
#pragma unroll 1
    for (int w = consumer_item(sched, c.bars, 0); w < sched.n_items;) {
        const WorkItem t = work_item(p, w, c.rank);
        ItemRows ir = c.item_rows(t, g, c.sm.q + (n_done % kQBufs) * kQBytes); /* this item's Q */
#if UNMASKED_LOOP && OVERLAP == 1
        int plain_tiles_lo, plain_tiles_hi;
        c.plain_tiles(ir.m0, plain_tiles_lo, plain_tiles_hi);
#else
        const int plain_tiles_lo = 0, plain_tiles_hi = 0;
#endif
        ir.mask_b = mask + (long long)t.b * p.Nq * p.Nkv;

        OAcc oacc;
#pragma unroll
        for (int r = 0; r < kRT; ++r)
#pragma unroll
            for (int j = 0; j < kON; ++j)
#pragma unroll
                for (int i = 0; i < 32; ++i) oacc[r][j][i] = 0.f;
        if (!ITEM_PIPELINE || n_done == 0) rows.reset();

#if !WS_DYNAMIC_ITEMS
        mbar_wait(&c.bars.q_full[0], n_done & 1);
#endif
        const Turns turns(c.cons, ir.ntiles);
#if OVERLAP == 0
        (void)plain_tiles_lo, (void)plain_tiles_hi;
        serial_tiles(c, rows, oacc, ir, g, turns);
#else
        /* ITEM_PIPELINE: after the first item, the end of the item before issued this item's first S
         * and ran its softmax */
        if ((!ITEM_PIPELINE || n_done == 0) && ir.ntiles > 0) first_tile(c, rows, pk, ir, g, turns);
        overlap_tiles(c, rows, oacc, pk, ir, g, plain_tiles_lo, plain_tiles_hi, turns, trace);
        /* every S of the item retired: the producer may refill its Q buffer */
        c.release(&c.bars.q_empty[n_done % kQBufs]);
#if ITEM_PIPELINE
        /* The next item (its Q announced in the other buffer): its first S goes out with this item's
         * last P V, and O is stored while that S computes.  Each path below is straight wgmma code:
         * with the products under separate run-time branches ptxas cannot tell which group a wait
         * retires, waits for all (C7517) and serializes every wgmma (C7512). */
        const int w_next = consumer_item(sched, c.bars, n_done + 1);
        const WorkItem tn = work_item(p, w_next < sched.n_items ? w_next : w, c.rank);
        const bool next_s = w_next < sched.n_items && tn.ntiles > 0;
        const int gn = g + ir.ntiles, gv = gn - 1; /* ring tiles of the next item's first K, of the last V */
        const unsigned q_next = c.sm.q + ((n_done + 1) % kQBufs) * kQBytes;
        /* the next item's first softmax, on S in s_next (O is 0 then: alpha unused) */
        auto first_softmax = [&](STile& s_next) {
            ItemRows irn;
            irn.m0 = tn.m0;
            irn.mask_b = mask + (long long)tn.b * p.Nq * p.Nkv;
            irn.slope2 = score_mods::alibi_slope_log2(p, tn.h);
            float alpha[kRT][2];
#pragma unroll
            for (int r = 0; r < kRT; ++r)
                c.softmax(rows, r, s_next[r], tn.tb * BLOCK_N, pk[r], alpha[r], irn.m0, irn.mask_b, irn.slope2);
#if LATE_PACK
            Consumer::pack_p(s_next, pk);
#endif
        };
        if (ir.ntiles > 0 && next_s) {
            mbar_wait(&c.bars.v_full[gv % STAGES], (gv / STAGES) & 1);
            mbar_wait(&c.bars.k_full[gn % STAGES], (gn / STAGES) & 1);
            STile s_next;
            turns.begin(); /* PINGPONG: this item's last turn carries the next item's first S */
            c.issue_pv(oacc, gv % STAGES, pk);
            c.issue_s(gn % STAGES, s_next, q_next);
            turns.end(true);
            wgmma::wait<1>(); /* the P V (committed first) done */
            Consumer::hold_o(oacc);
            c.release_slot(&c.bars.v_empty[gv % STAGES]);
            c.store_o(oacc, rows, t, sinks, o, o_map);
            rows.reset();
            wgmma::wait<0>();
            Consumer::s_done(s_next);
            c.release_slot(&c.bars.k_empty[gn % STAGES]);
            first_softmax(s_next);
        } else { /* the last item, or no keys on one side of the boundary: one product at a time */
            if (ir.ntiles > 0) last_pv(c, oacc, pk, gv, turns);
            c.store_o(oacc, rows, t, sinks, o, o_map);
            rows.reset();
            if (next_s) {
                mbar_wait(&c.bars.k_full[gn % STAGES], (gn / STAGES) & 1);
                STile s_next;
                c.issue_s(gn % STAGES, s_next, q_next);
                wgmma::wait<0>();
                Consumer::s_done(s_next);
                c.release_slot(&c.bars.k_empty[gn % STAGES]);
                first_softmax(s_next);
            }
        }
        g = gn;
        ++n_done;
        w = w_next;
        continue;
#else
        if (ir.ntiles > 0) last_pv(c, oacc, pk, g + ir.ntiles - 1, turns);
#endif
#endif
        /* not ITEM_PIPELINE: the item's end */
        g += ir.ntiles;
        c.skip_pair_tail(t, g, ir.ntiles);
        c.store_o(oacc, rows, t, sinks, o, o_map);
        c.skip_item_tail(ir, g);
        ++n_done;
        w = consumer_item(sched, c.bars, n_done);
    }
    c.stores_done();
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
    const SmemLayout sm = smem_layout(smem_raw);
    const int tid = threadIdx.x;
    const int rank = cluster_rank();
    const Schedule sched = block_schedule(p);
    init_barriers(bars, tid);

    if (tid >> 7 == 0) { /* warpgroup 0: the producer */
#if REG_SPLIT
        setmaxnreg_dec<PRODUCER_REGS>();
#endif
        if (tid == 0) producer(p, bars, sm, sched, rank, wsp, &q_map, &k_map, &v_map);
#if CLUSTER == 2
        __syncwarp();
#endif
        cluster_exit();
        return; /* every copy issued lands in a ring slot some consumer waits for */
    }
    /* warpgroups 1 .. WS_CONSUMERS: the consumers */
#if REG_SPLIT
    setmaxnreg_inc<CONSUMER_REGS>();
#endif
    consumer(Consumer(p, bars, sm, tid, rank), sched, mask, sinks, o, &o_map, wsp);
    cluster_exit();
}

/* decode_ring.cuh: what the split-KV decode kernels share (flash_attn_decode.cu,
 * paged_decode.cu): the online-softmax helpers and the tensor-core split pass
 * whose warps stream K / V through a cp.async ring in shared memory.
 *
 * The includer defines HEAD_DIM, DEC_THREADS, DEC_UNROLL (16-key steps per ring
 * stage), DEC_STAGES and the element type elem_t (__half or __nv_bfloat16)
 * first; ring_pass needs DEC_RING_BYTES of dynamic shared memory.
 */
#ifndef ATTN_TUNE_DECODE_RING_CUH
#define ATTN_TUNE_DECODE_RING_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/attn_params.h"
#include "cuda/ptx/cp_async.cuh"
#include "cuda/ptx/ldmatrix.cuh"
#include "cuda/ptx/math.cuh"
#include "cuda/ptx/mma.cuh"

/* Padded head dimensions of the ring (every padding test is a compile-time
 * constant when HEAD_DIM is already a multiple): products run over FD_DIM_K
 * dims (the k16 step) with rows FD_DIM_S wide in shared memory (a power of two
 * of at least 8 chunks, what the swizzle and the copy mapping need), the padded
 * chunks zero-filled by cp.async (nothing read) and never stored. */
#define FD_DIM_K ((HEAD_DIM + 15) / 16 * 16)
#define FD_DIM_S (FD_DIM_K <= 64 ? 64 : FD_DIM_K <= 128 ? 128 : 256)
#define DEC_RING_BYTES (DEC_THREADS / 32 * DEC_STAGES * DEC_UNROLL * 64 * FD_DIM_S)
#define FD_NEG_INF (__int_as_float(0xff800000)) /* NVRTC has no math.h INFINITY */

namespace decring {

using namespace ptx;

constexpr int kWarps = DEC_THREADS / 32;
[[maybe_unused]] constexpr int kDC = HEAD_DIM / 8; /* 16-byte chunks of a row in global memory */
constexpr int kU = DEC_UNROLL;
constexpr float kLog2e = 1.4426950408889634f;

/* head h's ALiBi slope, times log2(e) (scores are in the log2 domain) */
__device__ __forceinline__ float alibi_slope2(const attn_params& p, int h) {
    if (!(p.max_bias > 0.f)) return 0.f;
    return kLog2e * (h < p.n_head_log2 ? __powf(p.m0, (float)(h + 1))
                                       : __powf(p.m1, (float)(2 * (h - p.n_head_log2) + 1)));
}

/* merge (m2, l2, o2) into (m, l, o); m in the log2 domain, -inf = empty */
template <int N>
__device__ __forceinline__ void merge_state(float& m, float& l, float* o, float m2, float l2, const float* o2) {
    const float mn = fmaxf(m, m2);
    const float mu = (mn == FD_NEG_INF) ? 0.f : mn;
    const float a = ex2(m - mu), c = ex2(m2 - mu);
    l = l * a + l2 * c;
#pragma unroll
    for (int e = 0; e < N; ++e) o[e] = o[e] * a + o2[e] * c;
    m = mn;
}

/* ------------------------------------------------------------------------
 * The tensor-core split pass with a cp.async shared-memory ring.
 *
 * Why: DEC_MMA 1 holds every K / V byte it waits for in registers, so the
 * bytes in flight per SM are capped by the register file (174-255 registers,
 * 2 blocks of 4 warps, no overlap of a warp's next loads with its math):
 * ~3.9 TB/s.  Here each warp owns a ring of DEC_STAGES stages in dynamic
 * shared memory; a stage is DEC_UNROLL x 16 keys of K and of V (8 KB per 16
 * keys at D = 128), filled by 16-byte cp.async.cg copies (one commit group per
 * stage) while the warp computes an older stage, so DEC_STAGES - 1 stages per
 * warp are always in flight, whatever the register count.
 *
 * Keys: the split's range [r_begin, r_end) is cut into stages of
 * kStageKeys = 16 * DEC_UNROLL keys from r_base (r_begin, or r_begin rounded
 * down to the source's alignment: a paged cache's 16-key groups each lie in
 * one page); warp w takes stages w, w + kWarps, ... (fixed, independent of B:
 * SPLIT_MODE 0 stays batch-invariant).  Each warp
 * keeps its own online-softmax state; the warps are merged in index order at
 * the end (as DEC_MMA 1).  No block barrier in the loop: the ring is private to
 * the warp (cp.async.wait_group + __syncwarp).
 *
 * Shared layout (per warp, per stage): K tile [kStageKeys][D] then V tile
 * [kStageKeys][D], rows of D * 2 bytes, 16-byte chunk c of row r stored at
 * chunk c ^ (r & 7) (conflict-free cp.async writes and ldmatrix reads).  Rows
 * outside [r_begin, r_end) are zero-filled (src-size 0), so P (= 0 there)
 * times V is 0.
 *
 * Where the rows are comes from the source Kv (the only difference between
 * the contiguous and the paged decode kernels):
 *   kAlign           1, or 16 when only 16-key groups are contiguous
 *   kLookup          rows found through a table (a paged cache's block table):
 *                    ref(key) reads the key's entry, row_in(ref, key) is row(key);
 *                    the entries of the next stage a warp will issue are read one
 *                    iteration ahead, so that issuing it waits for no table load
 *   k, v             element pointers the offsets below are relative to
 *   row(key)         element offset of the key's row (K and V alike)
 *   row_stride()     elements between consecutive keys of one 16-key group
 *   q_head(h)        query head h's row
 *   out_o(h), out_ml(h)  where this split's partial o[D] and (m, l) go
 *
 * Math per 16 keys, operands swapped so that the query heads are the mma N
 * dimension (8 per n-tile) and nothing is padded (DEC_MMA 1 pads the heads to
 * 16 mma rows: twice the HMMAs, zero A registers):
 *   S^T = K Q^T     A = K (16 keys x 16 dims) by ldmatrix.x4, B = Q^T (registers);
 *                   C = keys x heads, so each lane holds 2 keys x 2 heads
 *   softmax         per head over keys: in-lane, then shuffles over the 8 lanes
 *                   with the same (lane & 3)
 *   O^T += V^T P^T  A = V^T (16 dims x 16 keys) by ldmatrix.x4.trans, B = P^T from
 *                   the S^T accumulators packed to 16 bits and transposed
 *                   (keys x heads -> heads x keys) by movmatrix.trans
 * D = 128: 8 + 8 HMMA, 8 LDSM + 8 LDSM.T, 2 MOVM, 16 LDGSTS per 16 keys per warp.
 * ---------------------------------------------------------------------- */
constexpr int kStages = DEC_STAGES;
constexpr int kStageKeys = 16 * kU;                  /* keys per ring stage */
constexpr int kRowBytes = FD_DIM_S * 2;              /* one K or V row in shared memory */
constexpr int kChunks = FD_DIM_S / 8;                /* 16-byte chunks per row in shared memory */
constexpr int kKC = FD_DIM_K / 8;                    /* chunks the products read (the rest: never touched) */
constexpr int kRed = FD_DIM_K + 2;                   /* floats per warp in the cross-warp merge */
constexpr int kTileBytes = kStageKeys * kRowBytes;   /* K (or V) part of a stage */
constexpr int kStageBytes = 2 * kTileBytes;
constexpr int kRingBytes = kStages * kStageBytes;    /* per warp */
constexpr int kCpIters = kStageKeys * kChunks / 32;  /* 16-byte copies per lane per tile */
constexpr int kGroupIters = kCpIters / kU;         /* copies per lane per 16-key group */
static_assert(kWarps * kRingBytes == DEC_RING_BYTES, "DEC_RING_BYTES");
static_assert(kRingBytes >= 0 && kWarps * kRed * 4 <= kWarps * kRingBytes, "red fits in the rings");
static_assert((kStageKeys * kChunks) % 32 == 0 && 32 % kChunks == 0, "whole copies per lane, whole rows per copy");

/* kNT 8-head n-tiles: the query heads hq0 .. hq0 + 8 kNT - 1 (those < hq_end) */
template <int kNT, class Kv>
__device__ __forceinline__ void ring_pass(const Kv& kv, const __half* __restrict__ mask_row, const attn_params& p,
                                          int pos, int hq0, int hq_end, int r_begin, int r_end, unsigned char* smem) {
    constexpr int kKS = FD_DIM_K / 16; /* k-steps of S^T = K Q^T, m-tiles of O^T */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int lg = lane >> 2, lt = lane & 3; /* mma groupID, thread in group */
    const float sl2 = p.scale * kLog2e;
    const bool has_mask = p.has_mask != 0;
    const bool has_alibi = p.max_bias > 0.f;

    /* this warp's ring and its stages */
    const unsigned ring = (unsigned)__cvta_generic_to_shared(smem) + warp * kRingBytes;
    const int r_base = Kv::kAlign > 1 ? r_begin - r_begin % Kv::kAlign : r_begin;
    const int n_total = r_end > r_begin ? (r_end - r_base + kStageKeys - 1) / kStageKeys : 0;
    const int my_n = n_total > warp ? (n_total - warp + kWarps - 1) / kWarps : 0;

    /* cp.async of this warp's stage i into ring buffer buf.  Copy it of a lane (K and V alike):
     * row kRowStep * it + lrow, chunk lch of the tile (kRowStep = 32 / kChunks rows per warp
     * instruction: 512 contiguous bytes), stored at chunk lch ^ (row & 7); since kRowStep is a
     * power of two and lrow < kRowStep, row & 7 == ((kRowStep * it) & 7) | lrow, so the shared
     * offset is kRowStep * it * kRowBytes + (s_lane ^ (((kRowStep * it) & 7) << 4)). */
    constexpr int kRowStep = 32 / kChunks;
    const int lrow = lane / kChunks, lch = lane % kChunks;
    /* padded D: a lane's chunk is fixed; it copies real data, zero-fills a padded chunk the
     * products read, or copies nothing (chunks past FD_DIM_K) */
    const bool l_real = kChunks == kDC || lch < kDC;
    const bool l_copy = kChunks == kKC || lch < kKC;
    const unsigned l_bytes = l_real ? 16u : 0u;
    const int rs = kv.row_stride();
    const int l_chunk = (l_real ? lch : 0) * 8;
    const int g_lane = lrow * rs + l_chunk;
    const unsigned s_lane = (unsigned)(lrow * kRowBytes + ((lch ^ lrow) << 4));
    /* kLookup: the table entries of the next whole stage this warp issues (16-key group u's in
     * refs[u]; clamped into the split for a partial stage, which looks its rows up one by one) */
    [[maybe_unused]] int refs[kU];
    [[maybe_unused]] auto lookup = [&](int i) {
        if constexpr (Kv::kLookup) {
            const int key0 = r_base + (warp + i * kWarps) * kStageKeys;
#pragma unroll
            for (int u = 0; u < kU; ++u) refs[u] = kv.ref(min(key0 + 16 * u, r_end - 1));
        }
    };
    auto group_row = [&](int u, int key) {
        if constexpr (Kv::kLookup) return kv.row_in(refs[u], key);
        else return kv.row(key);
    };
    auto issue = [&](int i, int buf) {
        const int key0 = r_base + (warp + i * kWarps) * kStageKeys;
        const unsigned kdst = ring + buf * kStageBytes;
        if ((Kv::kAlign == 1 || key0 >= r_begin) && key0 + kStageKeys <= r_end) { /* warp-uniform: a whole stage */
#pragma unroll
            for (int u = 0; u < kU; ++u) { /* one 16-key group: one row lookup */
                const auto g0 = group_row(u, key0 + 16 * u) + g_lane;
#pragma unroll
                for (int it = 0; it < kGroupIters; ++it) {
                    const int row = kRowStep * (u * kGroupIters + it);
                    const unsigned soff = row * kRowBytes + (s_lane ^ ((row & 7) << 4));
                    if (l_copy) {
                        cp_async16_zfill(kdst + soff, kv.k + g0 + it * kRowStep * rs, l_bytes);
                        cp_async16_zfill(kdst + kTileBytes + soff, kv.v + g0 + it * kRowStep * rs, l_bytes);
                    }
                }
            }
        } else { /* the split's first or last stage: rows outside [r_begin, r_end) are zero-filled
                  * (src-size 0; their source address is row r_begin's, inside the tensor, and no
                  * byte of it is read) */
#pragma unroll
            for (int it = 0; it < kCpIters; ++it) {
                const unsigned soff = kRowStep * it * kRowBytes + (s_lane ^ (((kRowStep * it) & 7) << 4));
                const int key = key0 + kRowStep * it + lrow;
                const bool ok = (Kv::kAlign == 1 || key >= r_begin) && key < r_end; /* kAlign 1: r_base == r_begin */
                const auto goff = kv.row(ok ? key : r_begin) + l_chunk;
                if (l_copy) {
                    cp_async16_zfill(kdst + soff, kv.k + goff, ok ? l_bytes : 0u);
                    cp_async16_zfill(kdst + kTileBytes + soff, kv.v + goff, ok ? l_bytes : 0u);
                }
            }
        }
    };

    /* prologue: stages 0 .. kStages - 2, one commit group each (empty past my_n) */
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < my_n) {
            if constexpr (Kv::kLookup) lookup(s);
            issue(s, s);
        }
        cp_async_commit();
    }
    if constexpr (Kv::kLookup)
        if (kStages - 1 < my_n) lookup(kStages - 1);

    /* Q^T B fragments (k = head dims, n = heads): qb[n][ks][0] = Q[hq0 + 8n + lg][16ks + 2lt ..+1],
     * qb[n][ks][1] = Q[hq0 + 8n + lg][16ks + 8 + 2lt ..+1]; zero for heads >= hq_end.
     * This lane's softmax heads: hq0 + 8n + 2lt + e (e = 0, 1), the columns of its accumulators. */
    unsigned qb[kNT][kKS][2];
    float slope2[kNT][2];
#pragma unroll
    for (int n = 0; n < kNT; ++n) {
        const int h = hq0 + 8 * n + lg;
        const bool ok = h < hq_end;
        const unsigned* qh = reinterpret_cast<const unsigned*>(kv.q_head(ok ? h : hq0));
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks) {
            /* dims past HEAD_DIM (padding) are zeros */
            qb[n][ks][0] = ok && 16 * ks + 8 <= HEAD_DIM ? qh[8 * ks + lt] : 0u;
            qb[n][ks][1] = ok && 16 * ks + 16 <= HEAD_DIM ? qh[8 * ks + 4 + lt] : 0u;
        }
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const int hs = hq0 + 8 * n + 2 * lt + e;
            slope2[n][e] = hs < hq_end ? alibi_slope2(p, hs) : 0.f;
        }
    }

    /* O^T accumulators: acc[n][mt] = rows (dims) 16mt + lg, 16mt + 8 + lg, columns (heads) 2lt, 2lt + 1
     * of n-tile n: [0] = (16mt + lg, 2lt), [1] = (16mt + lg, 2lt + 1), [2] / [3] = dim 16mt + 8 + lg */
    float acc[kNT][kKS][4];
#pragma unroll
    for (int n = 0; n < kNT; ++n)
#pragma unroll
        for (int mt = 0; mt < kKS; ++mt)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[n][mt][e] = 0.f;
    float m[kNT][2], l[kNT][2];
#pragma unroll
    for (int n = 0; n < kNT; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            m[n][e] = FD_NEG_INF;
            l[n][e] = 0.f;
        }

    /* per-lane ldmatrix offsets (row & 7 == lane & 7 for every matrix row a lane addresses; the
     * swizzled chunk (2 x + h) ^ (lane & 7) == 2 x ^ (h ^ (lane & 7))):
     *  K as the A operand of S^T = K Q^T, k-step ks (x4, not transposed): matrices
     *     {keys 0-7, 8-15, 0-7, 8-15} x {dims 16ks .. +7, 16ks .. +7, 16ks + 8 .., 16ks + 8 ..}
     *     = a0 .. a3: lane row (lane & 7) + 8 ((lane >> 3) & 1), chunk 2 ks + (lane >> 4)
     *  V^T as the A operand of O^T += V^T P^T, m-tile mt (x4, transposed): matrices
     *     {keys 0-7, 0-7, 8-15, 8-15} x {dims 16mt .. +7, 16mt + 8 .., 16mt .., 16mt + 8 ..}
     *     = a0 .. a3: lane row (lane & 7) + 8 (lane >> 4), chunk 2 mt + ((lane >> 3) & 1) */
    const unsigned k_lane = (unsigned)(((lane & 7) + 8 * ((lane >> 3) & 1)) * kRowBytes);
    const unsigned k_x = (unsigned)(((lane >> 4) ^ (lane & 7)) << 4);
    const unsigned v_lane = (unsigned)(((lane & 7) + 8 * (lane >> 4)) * kRowBytes);
    const unsigned v_x = (unsigned)((((lane >> 3) & 1) ^ (lane & 7)) << 4);

    int rd = 0, wr = kStages - 1;
#pragma unroll 1
    for (int i = 0; i < my_n; ++i) {
        cp_async_wait<kStages - 2>(); /* this lane's copies of stage i have landed ... */
        __syncwarp();                 /* ... and every lane's; buffer wr (stage i - 1) is free */
        if (i + kStages - 1 < my_n) issue(i + kStages - 1, wr);
        if constexpr (Kv::kLookup)
            if (i + kStages < my_n) lookup(i + kStages); /* waited for at the next issue, not now */
        cp_async_commit();

        const int key0 = r_base + (warp + i * kWarps) * kStageKeys;
        const unsigned kt = ring + rd * kStageBytes, vt = kt + kTileBytes;

        /* ---- S^T = K Q^T, kU sub-steps of 16 keys: s[u][n] = keys 16u + lg (+8 for [2], [3]),
         *      heads 8n + 2lt (+1 for [1], [3]) ---- */
        float s[kU][kNT][4];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
#pragma unroll
            for (int n = 0; n < kNT; ++n)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[u][n][e] = 0.f;
#pragma unroll
            for (int ks = 0; ks < kKS; ++ks) {
                unsigned kf[4];
                ldsm_x4(kt + u * 16 * kRowBytes + k_lane + ((unsigned)(32 * ks) ^ k_x), kf);
#pragma unroll
                for (int n = 0; n < kNT; ++n) mma16816<elem_t>(s[u][n], kf, qb[n][ks][0], qb[n][ks][1]);
            }
        }
        /* ---- scale, mask, online softmax: per head over the stage's keys (this lane's 2 kU keys,
         *      then the 8 lanes of the same lt) ---- */
        float add[kU][2];
#pragma unroll
        for (int u = 0; u < kU; ++u)
#pragma unroll
            for (int hk = 0; hk < 2; ++hk) {
                const int key = key0 + 16 * u + 8 * hk + lg;
                add[u][hk] = (has_mask && key < r_end) ? __half2float(mask_row[key]) * kLog2e : 0.f;
            }
#pragma unroll
        for (int n = 0; n < kNT; ++n)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                float mx = FD_NEG_INF;
#pragma unroll
                for (int u = 0; u < kU; ++u)
#pragma unroll
                    for (int hk = 0; hk < 2; ++hk) {
                        const int key = key0 + 16 * u + 8 * hk + lg;
                        float x = s[u][n][2 * hk + e] * sl2 + add[u][hk];
                        if (has_alibi) x = fmaf(-slope2[n][e], (float)abs(pos - key), x);
                        x = (Kv::kAlign == 1 || key >= r_begin) && key < r_end ? x : FD_NEG_INF;
                        s[u][n][2 * hk + e] = x;
                        mx = fmaxf(mx, x);
                    }
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 4));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 8));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 16));
                const float mn = fmaxf(m[n][e], mx);
                const float mu = (mn == FD_NEG_INF) ? 0.f : mn;
                const float alpha = ex2(m[n][e] - mu);
                m[n][e] = mn;
                float sum = 0.f;
#pragma unroll
                for (int u = 0; u < kU; ++u)
#pragma unroll
                    for (int hk = 0; hk < 2; ++hk) {
                        const float pe = ex2(s[u][n][2 * hk + e] - mu);
                        s[u][n][2 * hk + e] = pe;
                        sum += pe;
                    }
                l[n][e] = l[n][e] * alpha + sum;
#pragma unroll
                for (int mt = 0; mt < kKS; ++mt) {
                    acc[n][mt][e] *= alpha;
                    acc[n][mt][2 + e] *= alpha;
                }
            }
        /* ---- O^T += V^T P^T: P^T's B fragments by transposing the packed S^T tiles
         *      (keys x heads -> heads x keys) with movmatrix ---- */
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            unsigned pb[kNT][2];
#pragma unroll
            for (int n = 0; n < kNT; ++n) {
                pb[n][0] = movmatrix_t(pack2<elem_t>(s[u][n][0], s[u][n][1])); /* keys 0-7 */
                pb[n][1] = movmatrix_t(pack2<elem_t>(s[u][n][2], s[u][n][3])); /* keys 8-15 */
            }
#pragma unroll
            for (int mt = 0; mt < kKS; ++mt) {
                unsigned vf[4];
                ldsm_x4_t(vt + u * 16 * kRowBytes + v_lane + ((unsigned)(32 * mt) ^ v_x), vf);
#pragma unroll
                for (int n = 0; n < kNT; ++n) mma16816<elem_t>(acc[n][mt], vf, pb[n][0], pb[n][1]);
            }
        }
        rd = (rd + 1 == kStages) ? 0 : rd + 1;
        wr = (wr + 1 == kStages) ? 0 : wr + 1;
    }
    cp_async_wait<0>(); /* only empty groups can be left; keeps the ring reusable */

    /* ---- per-head sums over the 8 lanes of the same lt, then the cross-warp merge per head ---- */
#pragma unroll
    for (int n = 0; n < kNT; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            l[n][e] += __shfl_xor_sync(0xffffffffu, l[n][e], 4);
            l[n][e] += __shfl_xor_sync(0xffffffffu, l[n][e], 8);
            l[n][e] += __shfl_xor_sync(0xffffffffu, l[n][e], 16);
        }
    float* red = reinterpret_cast<float*>(smem); /* aliases the rings: every warp must be done */
    __syncthreads();
    const int nheads = min(hq_end - hq0, 8 * kNT);
#pragma unroll 1
    for (int hh = 0; hh < nheads; ++hh) {
        const int hn = hh >> 3, he = hh & 1;
        if (lt == ((hh & 7) >> 1)) {
            float* rw = red + warp * kRed;
#pragma unroll
            for (int n = 0; n < kNT; ++n)
                if (n == hn) {
#pragma unroll
                    for (int mt = 0; mt < kKS; ++mt) {
                        rw[16 * mt + lg] = he ? acc[n][mt][1] : acc[n][mt][0];
                        rw[16 * mt + 8 + lg] = he ? acc[n][mt][3] : acc[n][mt][2];
                    }
                    if (lg == 0) {
                        rw[FD_DIM_K] = he ? m[n][1] : m[n][0];
                        rw[FD_DIM_K + 1] = he ? l[n][1] : l[n][0];
                    }
                }
        }
        __syncthreads();
        float* out_o = kv.out_o(hq0 + hh);
        for (int d = tid; d < HEAD_DIM; d += DEC_THREADS) {
            float mm = red[FD_DIM_K], ll = red[FD_DIM_K + 1], oo = red[d];
            for (int wi = 1; wi < kWarps; ++wi) {
                const float* rw = red + wi * kRed;
                merge_state<1>(mm, ll, &oo, rw[FD_DIM_K], rw[FD_DIM_K + 1], rw + d);
            }
            out_o[d] = oo;
            if (d == 0) {
                float* out_ml = kv.out_ml(hq0 + hh);
                out_ml[0] = mm;
                out_ml[1] = ll;
            }
        }
        __syncthreads();
    }
}

}  // namespace decring

#endif /* ATTN_TUNE_DECODE_RING_CUH */

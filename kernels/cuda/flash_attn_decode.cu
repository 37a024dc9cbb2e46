/* flash_attn_decode: single-query (Nq == 1) split-KV decode for attn-tune.
 *
 * Two launches (the spec's "launches"):
 *   flash_attn_decode_split    grid [NUM_SPLITS, Hkv, B], block [DEC_THREADS]
 *       One block per (sequence, KV head, split).  All q_per_kv query heads of
 *       the KV head are packed into the block (GQA packing), so every K / V row
 *       is read from DRAM once.  Writes, per (b, query head, split), the
 *       unnormalised partial o[D], its running max m (log2 domain) and sum l.
 *   flash_attn_decode_combine  grid [SPLIT_MODE == 2 ? NUM_SPLITS : 1, Hq, B], block [DEC_COMBINE_THREADS]
 *       Merges the splits into o (sinks join the max and the denominator here).
 *
 * SPLIT_MODE
 *   0  deterministic: NUM_SPLITS splits whatever B is; combine in split order.
 *      Bitwise identical across runs and batch sizes (batch-invariant).
 *   1  production-style heuristic: the split count is computed from B * Hkv
 *      (about DEC_WAVES waves of DEC_SM_COUNT SMs, at most NUM_SPLITS); fixed
 *      combine order, so run-to-run deterministic, but NOT batch-invariant.
 *   2  atomic combine: NUM_SPLITS splits; the combine blocks (one per split)
 *      atomicAdd their rescaled partials in whatever order they run, and the
 *      last one to arrive normalises: NOT run-to-run deterministic.
 *      (The split kernel zeroes the accumulators every launch.)
 *
 * Work inside a split block: DEC_ROW_THREADS threads share a KV row (each
 * loads HEAD_DIM / DEC_ROW_THREADS elements as 16-byte vectors), so a block
 * holds DEC_THREADS / DEC_ROW_THREADS row groups, each with its own online
 * softmax state; DEC_UNROLL rows per group per step, the next step's K / V
 * prefetched into registers while the current one is computed.
 *
 * DEC_MMA selects the split pass: 0 = CUDA cores (above), 1 = tensor cores with
 * K / V fragments loaded from global memory into registers, 2 = tensor cores
 * with K / V streamed into shared memory by cp.async (a DEC_STAGES-deep ring
 * per warp, ldmatrix into the mma fragments; dynamic shared memory of
 * DEC_SMEM_BYTES = DEC_THREADS / 32 * DEC_STAGES * DEC_UNROLL * 64 * HEAD_DIM,
 * the spec's shared_bytes).  See ring_pass in decode_ring.cuh.
 *
 * Workspace (floats): part_o [B][Hq][NUM_SPLITS][D], part_ml [B][Hq][NUM_SPLITS][2],
 * and for SPLIT_MODE 2: acc_o [B][Hq][D], acc_l [B][Hq], counter [B][Hq].
 *   workspace_bytes = 4 * B * Hq * (NUM_SPLITS * (D + 2) + (SPLIT_MODE == 2 ? D + 2 : 0))
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/attn_params.h"
#include "cuda/ptx/cp_async.cuh"
#include "cuda/ptx/ldmatrix.cuh"
#include "cuda/ptx/math.cuh"
#include "cuda/ptx/mma.cuh"

#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef DTYPE
#define DTYPE 1 /* 1 = fp16, 2 = bf16 */
#endif
#ifndef NUM_SPLITS
#define NUM_SPLITS 16 /* SPLIT_MODE 0 / 2: the split count; SPLIT_MODE 1: its upper bound */
#endif
#ifndef DEC_THREADS
#define DEC_THREADS 128
#endif
#ifndef DEC_ROW_THREADS
#define DEC_ROW_THREADS 16 /* threads per KV row */
#endif
#ifndef DEC_UNROLL
#define DEC_UNROLL 2 /* DEC_MMA 1: 16-key steps per warp load batch; DEC_MMA 2: 16-key steps per ring stage;
                      DEC_MMA 0: rows per row group per step */
#endif
#ifndef SPLIT_MODE
#define SPLIT_MODE 0
#endif
#ifndef DEC_SM_COUNT
#define DEC_SM_COUNT 132
#endif
#ifndef DEC_WAVES
#define DEC_WAVES 2
#endif
#ifndef DEC_COMBINE_THREADS
#define DEC_COMBINE_THREADS 128
#endif
/* 1: tensor-core path (mma.sync m16n8k16, the packed query heads are the 16 mma rows,
 * K / V fragments loaded straight from global memory, 16 keys per warp step);
 * 2: tensor-core path with a cp.async shared-memory ring per warp (DEC_STAGES stages of
 * DEC_UNROLL x 16 keys), fragments by ldmatrix;
 * 0: CUDA-core path (DEC_ROW_THREADS threads per KV row, fp32 FMAs) */
#ifndef DEC_MMA
#define DEC_MMA 1
#endif
/* CUDA-core path: largest number of query heads processed per pass over K / V (1, 2, 4 or 8);
 * DEC_MMA 2: 16 compiles a second 8-head mma n-tile in (16 heads per pass), else 8 heads
 * per pass (any q_per_kv stays correct: more heads take more passes over K / V) */
#ifndef DEC_MAX_QPK
#define DEC_MAX_QPK 8
#endif
/* DEC_MMA 2: ring stages per warp (DEC_STAGES - 1 stages in flight while one is computed) */
#ifndef DEC_STAGES
#define DEC_STAGES 3
#endif

#if DTYPE != 1 && DTYPE != 2
#error "flash_attn_decode: DTYPE must be 1 (fp16) or 2 (bf16)"
#endif
#if HEAD_DIM % 8 != 0 || HEAD_DIM < 8 || HEAD_DIM > 256
#error "flash_attn_decode: HEAD_DIM must be a multiple of 8 in 8..256"
#endif
#if DEC_MMA == 1 && HEAD_DIM % 64 != 0
#error "flash_attn_decode: DEC_MMA 1 (permuted register fragments) takes HEAD_DIM 64, 128 or 256"
#endif

/* Padded head dimension (every padding test is a compile-time constant when
 * HEAD_DIM is already a multiple): DEC_MMA 0 gives each of the DEC_ROW_THREADS
 * threads of a row FD_DIM_R / DEC_ROW_THREADS elements, chunks past HEAD_DIM
 * being zeros that are never stored; DEC_MMA 2's padding (FD_DIM_K, FD_DIM_S)
 * is decode_ring.cuh's. */
#define FD_DIM_R ((HEAD_DIM + 8 * DEC_ROW_THREADS - 1) / (8 * DEC_ROW_THREADS) * (8 * DEC_ROW_THREADS))
#if SPLIT_MODE < 0 || SPLIT_MODE > 2
#error "flash_attn_decode: SPLIT_MODE must be 0, 1 or 2"
#endif
#if NUM_SPLITS < 1 || NUM_SPLITS > 1024
#error "flash_attn_decode: NUM_SPLITS must be in 1..1024"
#endif
#if DEC_THREADS % 32 != 0 || DEC_THREADS < 64 || DEC_THREADS > 1024
#error "flash_attn_decode: DEC_THREADS must be a multiple of 32 in 64..1024"
#endif
#if DEC_ROW_THREADS != 2 && DEC_ROW_THREADS != 4 && DEC_ROW_THREADS != 8 && DEC_ROW_THREADS != 16 && DEC_ROW_THREADS != 32
#error "flash_attn_decode: DEC_ROW_THREADS must be 2, 4, 8, 16 or 32"
#endif
#if DEC_UNROLL < 1 || DEC_UNROLL > 16
#error "flash_attn_decode: DEC_UNROLL must be in 1..16"
#endif
#if DEC_MAX_QPK != 1 && DEC_MAX_QPK != 2 && DEC_MAX_QPK != 4 && DEC_MAX_QPK != 8 && \
    !(DEC_MMA == 2 && DEC_MAX_QPK == 16)
#error "flash_attn_decode: DEC_MAX_QPK must be 1, 2, 4 or 8 (or 16 with DEC_MMA 2)"
#endif
#if DEC_MMA != 0 && DEC_MMA != 1 && DEC_MMA != 2
#error "flash_attn_decode: DEC_MMA must be 0, 1 or 2"
#endif
#if DEC_MMA == 2 && (DEC_STAGES < 2 || DEC_STAGES > 8)
#error "flash_attn_decode: DEC_STAGES must be in 2..8"
#endif
#if DEC_MMA == 2 && DEC_UNROLL > 4
#error "flash_attn_decode: DEC_MMA 2 takes DEC_UNROLL 1..4 (16-key steps per ring stage)"
#endif
#define DEC_SMEM_BYTES (DEC_MMA == 2 ? DEC_RING_BYTES : 0)
#if DEC_COMBINE_THREADS % 32 != 0 || DEC_COMBINE_THREADS > 1024
#error "flash_attn_decode: DEC_COMBINE_THREADS must be a multiple of 32, at most 1024"
#endif

#if DTYPE == 1
typedef __half elem_t;
#else
typedef __nv_bfloat16 elem_t;
#endif

#include "cuda/decode_ring.cuh" /* after elem_t: the ring pass and the softmax helpers */

namespace fd {

using namespace ptx;
using namespace decring;

constexpr int kRT = DEC_ROW_THREADS;
constexpr int kGroups = DEC_THREADS / kRT;       /* row groups per block */
constexpr int kEPT = FD_DIM_R / kRT;             /* elements per thread per row (padded) */
[[maybe_unused]] constexpr int kCH = kEPT / 8;   /* 16-byte vectors per thread per row */
[[maybe_unused]] constexpr int kRowsPerStep = kGroups * kU;

/* streaming 16-byte load: read-only path, no L1 allocation */
__device__ __forceinline__ uint4 ld_stream(const void* ptr) {
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(ptr));
    return r;
}

/* two packed 16-bit values -> floats */
__device__ __forceinline__ float2 unpack2(unsigned w) {
#if DTYPE == 1
    __half2 h = *reinterpret_cast<__half2*>(&w);
    return __half22float2(h);
#else
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
#endif
}

__device__ __forceinline__ float elem_to_float(elem_t x) {
#if DTYPE == 1
    return __half2float(x);
#else
    return __bfloat162float(x);
#endif
}
__device__ __forceinline__ elem_t float_to_elem(float x) {
#if DTYPE == 1
    return __float2half_rn(x);
#else
    return __float2bfloat16_rn(x);
#endif
}

/* the split count in force (grid.x is NUM_SPLITS; blocks past it exit) */
__device__ __forceinline__ int num_splits(const attn_params& p) {
#if SPLIT_MODE == 1
    const int per_split = p.B * p.Hkv;
    const int target = DEC_SM_COUNT * DEC_WAVES;
    int n = (target + per_split - 1) / per_split;
    const int max_by_len = (p.Nkv + 255) / 256; /* splits of at least 256 keys */
    n = min(n, max_by_len);
    return max(1, min(n, NUM_SPLITS));
#else
    (void)p;
    return NUM_SPLITS;
#endif
}

/* workspace views */
struct Ws {
    float* part_o;    /* [B][Hq][NUM_SPLITS][D] */
    float* part_ml;   /* [B][Hq][NUM_SPLITS][2] */
    float* acc_o;     /* [B][Hq][D]      (SPLIT_MODE 2) */
    float* acc_l;     /* [B][Hq]         (SPLIT_MODE 2) */
    unsigned* count;  /* [B][Hq]         (SPLIT_MODE 2) */
};
__device__ __forceinline__ Ws ws_views(float* ws, const attn_params& p) {
    Ws w;
    const long long bh = (long long)p.B * p.Hq;
    w.part_o = ws;
    w.part_ml = ws + bh * NUM_SPLITS * HEAD_DIM;
    w.acc_o = w.part_ml + bh * NUM_SPLITS * 2;
    w.acc_l = w.acc_o + bh * HEAD_DIM;
    w.count = reinterpret_cast<unsigned*>(w.acc_l + bh);
    return w;
}

/* one pass over this split's rows for QPK query heads (hq0 .. hq0 + QPK - 1, those < hq_end) */
template <int QPK>
__device__ __forceinline__ void split_pass(const elem_t* __restrict__ q, const elem_t* __restrict__ kb,
                                           const elem_t* __restrict__ vb, const __half* __restrict__ mask_row,
                                           const attn_params& p, int b, int hq0, int hq_end, int r_begin, int r_end,
                                           int split, const Ws& w, float* red) {
    const int tid = threadIdx.x;
    const int g = tid / kRT, t = tid % kRT;
    const int lane = tid & 31, warp = tid >> 5;
    const int pos = p.kv_offset; /* Nq == 1: the query's absolute position */
    const float sl2 = p.scale * kLog2e;
    const bool has_mask = p.has_mask != 0;
    const bool has_alibi = p.max_bias > 0.f;

    /* q (pre-scaled into the log2 domain) and the per-head ALiBi slopes */
    float qr[QPK][kEPT];
    float slope2[QPK];
#pragma unroll
    for (int hh = 0; hh < QPK; ++hh) {
        const int h = hq0 + hh;
        const bool ok = h < hq_end;
        slope2[hh] = ok ? alibi_slope2(p, h) : 0.f;
        const elem_t* qh = q + ((long long)b * p.Hq + (ok ? h : hq0)) * HEAD_DIM;
#pragma unroll
        for (int c = 0; c < kCH; ++c) {
            const bool real = FD_DIM_R == HEAD_DIM || t + c * kRT < kDC; /* padded chunks: zeros */
            const uint4 raw = real ? *reinterpret_cast<const uint4*>(qh + (t + c * kRT) * 8) : make_uint4(0, 0, 0, 0);
            const unsigned wd[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
            for (int e2 = 0; e2 < 4; ++e2) {
                const float2 f = unpack2(wd[e2]);
                qr[hh][c * 8 + e2 * 2] = ok ? f.x * sl2 : 0.f;
                qr[hh][c * 8 + e2 * 2 + 1] = ok ? f.y * sl2 : 0.f;
            }
        }
    }

    float m[QPK], l[QPK], o[QPK][kEPT];
#pragma unroll
    for (int hh = 0; hh < QPK; ++hh) {
        m[hh] = FD_NEG_INF;
        l[hh] = 0.f;
#pragma unroll
        for (int e = 0; e < kEPT; ++e) o[hh][e] = 0.f;
    }

    /* register double buffer: K / V vectors of kU rows */
    uint4 kbuf[2][kU][kCH], vbuf[2][kU][kCH]; /* [0] = being computed, [1] = in flight */
    auto load_step = [&](int buf, int r0) {
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int r = r0 + u * kGroups + g;
            const bool ok = r < r_end;
            const long long off = (long long)(ok ? r : r_begin) * HEAD_DIM;
#pragma unroll
            for (int c = 0; c < kCH; ++c) {
                const int d0 = (t + c * kRT) * 8;
                if (ok && (FD_DIM_R == HEAD_DIM || t + c * kRT < kDC)) {
                    kbuf[buf][u][c] = ld_stream(kb + off + d0);
                    vbuf[buf][u][c] = ld_stream(vb + off + d0);
                } else {
                    kbuf[buf][u][c] = make_uint4(0, 0, 0, 0);
                    vbuf[buf][u][c] = make_uint4(0, 0, 0, 0);
                }
            }
        }
    };
    auto compute_step = [&](int buf, int r0) {
        float s[kU][QPK];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
#pragma unroll
            for (int hh = 0; hh < QPK; ++hh) s[u][hh] = 0.f;
#pragma unroll
            for (int c = 0; c < kCH; ++c) {
                const unsigned wd[4] = {kbuf[buf][u][c].x, kbuf[buf][u][c].y, kbuf[buf][u][c].z, kbuf[buf][u][c].w};
#pragma unroll
                for (int e2 = 0; e2 < 4; ++e2) {
                    const float2 kf = unpack2(wd[e2]);
#pragma unroll
                    for (int hh = 0; hh < QPK; ++hh) {
                        s[u][hh] = fmaf(qr[hh][c * 8 + e2 * 2], kf.x, s[u][hh]);
                        s[u][hh] = fmaf(qr[hh][c * 8 + e2 * 2 + 1], kf.y, s[u][hh]);
                    }
                }
            }
        }
        /* reduce over the kRT threads of the row group (a fixed butterfly: deterministic) */
#pragma unroll
        for (int off = 1; off < kRT; off <<= 1)
#pragma unroll
            for (int u = 0; u < kU; ++u)
#pragma unroll
                for (int hh = 0; hh < QPK; ++hh) s[u][hh] += __shfl_xor_sync(0xffffffffu, s[u][hh], off);
        /* masking, mask, ALiBi; then the online softmax update (one rescale per step) */
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int j = r0 + u * kGroups + g;
            const bool ok = j < r_end;
            float add = 0.f;
            if (has_mask && ok) add = __half2float(mask_row[j]) * kLog2e;
            const float dist = (float)abs(pos - j);
#pragma unroll
            for (int hh = 0; hh < QPK; ++hh) {
                float x = s[u][hh] + add;
                if (has_alibi) x = fmaf(-slope2[hh], dist, x);
                s[u][hh] = ok ? x : FD_NEG_INF;
            }
        }
#pragma unroll
        for (int hh = 0; hh < QPK; ++hh) {
            float mx = s[0][hh];
#pragma unroll
            for (int u = 1; u < kU; ++u) mx = fmaxf(mx, s[u][hh]);
            const float mn = fmaxf(m[hh], mx);
            const float mu = (mn == FD_NEG_INF) ? 0.f : mn;
            const float alpha = ex2(m[hh] - mu);
            m[hh] = mn;
            float pr[kU];
            float sum = 0.f;
#pragma unroll
            for (int u = 0; u < kU; ++u) {
                pr[u] = ex2(s[u][hh] - mu);
                sum += pr[u];
            }
            l[hh] = l[hh] * alpha + sum;
#pragma unroll
            for (int e = 0; e < kEPT; ++e) o[hh][e] *= alpha;
#pragma unroll
            for (int u = 0; u < kU; ++u)
#pragma unroll
                for (int c = 0; c < kCH; ++c) {
                    const unsigned wd[4] = {vbuf[buf][u][c].x, vbuf[buf][u][c].y, vbuf[buf][u][c].z,
                                            vbuf[buf][u][c].w};
#pragma unroll
                    for (int e2 = 0; e2 < 4; ++e2) {
                        const float2 vf = unpack2(wd[e2]);
                        o[hh][c * 8 + e2 * 2] = fmaf(pr[u], vf.x, o[hh][c * 8 + e2 * 2]);
                        o[hh][c * 8 + e2 * 2 + 1] = fmaf(pr[u], vf.y, o[hh][c * 8 + e2 * 2 + 1]);
                    }
                }
        }
    };

    /* software pipeline over steps of kRowsPerStep rows: the next step's loads are in
     * flight while the current step is computed */
    if (r_begin < r_end) load_step(1, r_begin);
#pragma unroll 1
    for (int r0 = r_begin; r0 < r_end; r0 += kRowsPerStep) {
#pragma unroll
        for (int u = 0; u < kU; ++u)
#pragma unroll
            for (int c = 0; c < kCH; ++c) {
                kbuf[0][u][c] = kbuf[1][u][c];
                vbuf[0][u][c] = vbuf[1][u][c];
            }
        if (r0 + kRowsPerStep < r_end) load_step(1, r0 + kRowsPerStep);
        compute_step(0, r0);
    }

    /* ---- reduce the row groups: inside the warp by a fixed shuffle butterfly ... ---- */
#pragma unroll
    for (int off = kRT; off < 32; off <<= 1) {
#pragma unroll
        for (int hh = 0; hh < QPK; ++hh) {
            const float m2 = __shfl_xor_sync(0xffffffffu, m[hh], off);
            const float l2 = __shfl_xor_sync(0xffffffffu, l[hh], off);
            float o2[kEPT];
#pragma unroll
            for (int e = 0; e < kEPT; ++e) o2[e] = __shfl_xor_sync(0xffffffffu, o[hh][e], off);
            merge_state<kEPT>(m[hh], l[hh], o[hh], m2, l2, o2);
        }
    }

    /* ---- ... then across warps through shared memory, one head at a time ---- */
    const Ws& W = w;
    const int nsplit_stride = NUM_SPLITS;
#pragma unroll 1
    for (int hh = 0; hh < QPK; ++hh) {
        const int h = hq0 + hh;
        if (h >= hq_end) break; /* block-uniform */
        if (lane < kRT) {
#pragma unroll
            for (int c = 0; c < kCH; ++c)
                if (FD_DIM_R == HEAD_DIM || t + c * kRT < kDC) /* padded chunks are never stored */
#pragma unroll
                    for (int e = 0; e < 8; ++e) red[warp * (HEAD_DIM + 2) + (t + c * kRT) * 8 + e] = o[hh][c * 8 + e];
            if (lane == 0) {
                red[warp * (HEAD_DIM + 2) + HEAD_DIM] = m[hh];
                red[warp * (HEAD_DIM + 2) + HEAD_DIM + 1] = l[hh];
            }
        }
        __syncthreads();
        const long long bhs = ((long long)b * p.Hq + h) * nsplit_stride + split;
        for (int d = tid; d < HEAD_DIM; d += DEC_THREADS) {
            float mm = red[HEAD_DIM], ll = red[HEAD_DIM + 1], oo = red[d];
            for (int wi = 1; wi < kWarps; ++wi) {
                const float* rw = red + wi * (HEAD_DIM + 2);
                merge_state<1>(mm, ll, &oo, rw[HEAD_DIM], rw[HEAD_DIM + 1], rw + d);
            }
            W.part_o[bhs * HEAD_DIM + d] = oo;
            if (d == 0) {
                W.part_ml[bhs * 2] = mm;
                W.part_ml[bhs * 2 + 1] = ll;
            }
        }
        __syncthreads();
    }
}


/* ------------------------------------------------------------------------
 * Tensor-core split pass (DEC_MMA = 1).  A warp owns steps of 16 keys
 * (DEC_UNROLL steps at a time, warps interleaved); the up to 16 query heads
 * hq0 .. hq_end-1 are the rows of m16n8k16 (rows 8..15 only when more than 8).
 *  S = Q K^T: the head dimension is permuted (the same permutation for Q and
 *    K, so the dot products are unchanged) so that lane l's B fragments of two
 *    k-steps are one 16-byte load: K[key 8 j + l/4][32 i + 8 (l%4) .. + 8].
 *  O += P V: P comes from the S accumulators (FA2 register reuse); the output
 *    columns are permuted so that lane l needs V[4 keys][(l/4) D/8 .. + D/8],
 *    whole 16-byte vectors, packed into B fragments with byte_perm.
 * ---------------------------------------------------------------------- */

template <bool kTwoHalves>
__device__ __forceinline__ void split_pass_mma(const elem_t* __restrict__ q, const elem_t* __restrict__ kb,
                                               const elem_t* __restrict__ vb, const __half* __restrict__ mask_row,
                                               const attn_params& p, int b, int hq0, int hq_end, int r_begin,
                                               int r_end, int split, const Ws& w, float* red) {
    constexpr int kKS = HEAD_DIM / 16;      /* k-steps of Q K^T */
    constexpr int kKV = HEAD_DIM / 32;      /* 16-byte K vectors per lane per 8 keys */
    constexpr int kDT = HEAD_DIM / 8;       /* output n-tiles */
    constexpr int kVV = HEAD_DIM / 64;      /* 16-byte V vectors per lane per key row */
    constexpr int kHalves = kTwoHalves ? 2 : 1;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int lr = lane >> 2, lq = lane & 3;
    const int pos = p.kv_offset;
    const float sl2 = p.scale * kLog2e;
    const bool has_mask = p.has_mask != 0;
    const bool has_alibi = p.max_bias > 0.f;

    /* Q A fragments (rows = heads); a1 / a3 (rows 8..15) only with two halves */
    unsigned qa[kKS][4];
    float slope2[2];
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
        const int h = hq0 + lr + 8 * hf;
        const bool ok = (hf < kHalves) && h < hq_end;
        slope2[hf] = ok ? alibi_slope2(p, h) : 0.f;
        const elem_t* qh = q + ((long long)b * p.Hq + (ok ? h : hq0)) * HEAD_DIM;
#pragma unroll
        for (int i = 0; i < kKV; ++i) {
            uint4 v4 = make_uint4(0, 0, 0, 0);
            if (ok) v4 = *reinterpret_cast<const uint4*>(qh + i * 32 + lq * 8);
            /* k-step 2i: (a0|a1) = dims +0..1, (a2|a3) = +2..3; k-step 2i+1: +4..5, +6..7 */
            qa[2 * i][0 + hf] = v4.x;
            qa[2 * i][2 + hf] = v4.y;
            qa[2 * i + 1][0 + hf] = v4.z;
            qa[2 * i + 1][2 + hf] = v4.w;
        }
    }

    float acc[kDT][4];
#pragma unroll
    for (int nt = 0; nt < kDT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[nt][e] = 0.f;
    float m[2] = {FD_NEG_INF, FD_NEG_INF}, l[2] = {0.f, 0.f};

    constexpr int kStepKeys = 16;
    const int warp_stride = kWarps * kU * kStepKeys;
#pragma unroll 1
    for (int base = r_begin + warp * kU * kStepKeys; base < r_end; base += warp_stride) {
        /* issue every load of kU steps first */
        uint4 kv[kU][2][kKV];
        uint4 vv[kU][4][kVV];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int r0 = base + u * kStepKeys;
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int key = r0 + 8 * j + lr;
                const bool ok = key < r_end;
                const elem_t* src = kb + (long long)(ok ? key : r_begin) * HEAD_DIM + lq * 8;
#pragma unroll
                for (int i = 0; i < kKV; ++i) kv[u][j][i] = ok ? ld_stream(src + i * 32) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                const int key = r0 + 2 * lq + (t & 1) + 8 * (t >> 1);
                const bool ok = key < r_end;
                const elem_t* src = vb + (long long)(ok ? key : r_begin) * HEAD_DIM + lr * (HEAD_DIM / 8);
#pragma unroll
                for (int i = 0; i < kVV; ++i) vv[u][t][i] = ok ? ld_stream(src + i * 8) : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const int r0 = base + u * kStepKeys;
            /* ---- S = Q K^T (two n-tiles of 8 keys) ---- */
            float s[2][4];
#pragma unroll
            for (int j = 0; j < 2; ++j) {
#pragma unroll
                for (int e = 0; e < 4; ++e) s[j][e] = 0.f;
#pragma unroll
                for (int ks = 0; ks < kKS; ++ks) {
                    const uint4& v4 = kv[u][j][ks / 2];
                    const unsigned b0 = (ks & 1) ? v4.z : v4.x;
                    const unsigned b1 = (ks & 1) ? v4.w : v4.y;
                    unsigned a[4] = {qa[ks][0], kTwoHalves ? qa[ks][1] : 0u, qa[ks][2], kTwoHalves ? qa[ks][3] : 0u};
                    mma16816<elem_t>(s[j], a, b0, b1);
                }
            }
            /* ---- scale, mask, online softmax (rows lr and lr + 8) ---- */
#pragma unroll
            for (int hf = 0; hf < kHalves; ++hf) {
                float mx = FD_NEG_INF;
#pragma unroll
                for (int j = 0; j < 2; ++j)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int key = r0 + 8 * j + 2 * lq + e;
                        float x = s[j][2 * hf + e] * sl2;
                        if (has_mask && key < r_end) x = fmaf(__half2float(mask_row[key]), kLog2e, x);
                        if (has_alibi) x = fmaf(-slope2[hf], (float)abs(pos - key), x);
                        x = key < r_end ? x : FD_NEG_INF;
                        s[j][2 * hf + e] = x;
                        mx = fmaxf(mx, x);
                    }
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float mn = fmaxf(m[hf], mx);
                const float mu = (mn == FD_NEG_INF) ? 0.f : mn;
                const float alpha = ex2(m[hf] - mu);
                m[hf] = mn;
                float sum = 0.f;
#pragma unroll
                for (int j = 0; j < 2; ++j)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const float pe = ex2(s[j][2 * hf + e] - mu);
                        s[j][2 * hf + e] = pe;
                        sum += pe;
                    }
                l[hf] = l[hf] * alpha + sum;
#pragma unroll
                for (int nt = 0; nt < kDT; ++nt) {
                    acc[nt][2 * hf] *= alpha;
                    acc[nt][2 * hf + 1] *= alpha;
                }
            }
            /* ---- O += P V ---- */
            unsigned pa[4];
            pa[0] = pack2<elem_t>(s[0][0], s[0][1]);
            pa[1] = kTwoHalves ? pack2<elem_t>(s[0][2], s[0][3]) : 0u;
            pa[2] = pack2<elem_t>(s[1][0], s[1][1]);
            pa[3] = kTwoHalves ? pack2<elem_t>(s[1][2], s[1][3]) : 0u;
#pragma unroll
            for (int nt = 0; nt < kDT; ++nt) {
                /* element nt of this lane's D/8 columns: vector nt/8, word (nt%8)/2, half nt%2 */
                const int vi = nt / 8, wi = (nt % 8) / 2;
                const unsigned sel = (nt & 1) ? 0x7632u : 0x5410u;
                auto word = [&](int t) -> unsigned {
                    const uint4& x = vv[u][t][vi];
                    return wi == 0 ? x.x : (wi == 1 ? x.y : (wi == 2 ? x.z : x.w));
                };
                const unsigned b0 = __byte_perm(word(0), word(1), sel);
                const unsigned b1 = __byte_perm(word(2), word(3), sel);
                mma16816<elem_t>(acc[nt], pa, b0, b1);
            }
        }
    }

    /* ---- per-row sums over the quad, then the cross-warp merge per head ---- */
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
        l[hf] += __shfl_xor_sync(0xffffffffu, l[hf], 1);
        l[hf] += __shfl_xor_sync(0xffffffffu, l[hf], 2);
    }
    const int nheads = min(hq_end - hq0, 8 * kHalves);
#pragma unroll 1
    for (int hh = 0; hh < nheads; ++hh) {
        const int hf = hh >> 3;
        if (lr == (hh & 7)) {
            float* rw = red + warp * (HEAD_DIM + 2);
#pragma unroll
            for (int nt = 0; nt < kDT; ++nt)
#pragma unroll
                for (int e = 0; e < 2; ++e) rw[(2 * lq + e) * (HEAD_DIM / 8) + nt] = hf ? acc[nt][2 + e] : acc[nt][e];
            if (lq == 0) {
                rw[HEAD_DIM] = hf ? m[1] : m[0];
                rw[HEAD_DIM + 1] = hf ? l[1] : l[0];
            }
        }
        __syncthreads();
        const long long bhs = ((long long)b * p.Hq + hq0 + hh) * NUM_SPLITS + split;
        for (int d = tid; d < HEAD_DIM; d += DEC_THREADS) {
            float mm = red[HEAD_DIM], ll = red[HEAD_DIM + 1], oo = red[d];
            for (int wi = 1; wi < kWarps; ++wi) {
                const float* rw = red + wi * (HEAD_DIM + 2);
                merge_state<1>(mm, ll, &oo, rw[HEAD_DIM], rw[HEAD_DIM + 1], rw + d);
            }
            w.part_o[bhs * HEAD_DIM + d] = oo;
            if (d == 0) {
                w.part_ml[bhs * 2] = mm;
                w.part_ml[bhs * 2 + 1] = ll;
            }
        }
        __syncthreads();
    }
}

#if DEC_MMA == 2
/* DEC_MMA 2: decode_ring.cuh's ring_pass over this (sequence, KV head)'s contiguous
 * [Nkv][D] rows; the partials go to part_o / part_ml at (b, head, split). */
static_assert(DEC_SMEM_BYTES == DEC_RING_BYTES, "DEC_SMEM_BYTES");
struct ContiguousKv {
    static constexpr int kAlign = 1;
    static constexpr bool kLookup = false;
    const elem_t* k;
    const elem_t* v;      /* this (b, KV head)'s rows */
    const elem_t* q;      /* sequence b's [Hq][D] */
    float* part_o;        /* (b, head 0, split) */
    float* part_ml;
    __device__ __forceinline__ int row(int key) const { return key * HEAD_DIM; }
    __device__ __forceinline__ static constexpr int row_stride() { return HEAD_DIM; }
    __device__ __forceinline__ const elem_t* q_head(int h) const { return q + (long long)h * HEAD_DIM; }
    __device__ __forceinline__ float* out_o(int h) const { return part_o + (long long)h * NUM_SPLITS * HEAD_DIM; }
    __device__ __forceinline__ float* out_ml(int h) const { return part_ml + (long long)h * NUM_SPLITS * 2; }
};
#endif /* DEC_MMA == 2 */

}  // namespace fd

/* ------------------------------------------------------------ split kernel */
extern "C" __global__ void __launch_bounds__(DEC_THREADS)
flash_attn_decode_split(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
                        const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
                        float* __restrict__ ws, attn_params p) {
    using namespace fd;
    (void)sinks;
    (void)o;
#if DEC_MMA == 2
    extern __shared__ __align__(128) unsigned char dsmem[]; /* DEC_SMEM_BYTES: the warps' rings */
#else
    __shared__ float red[kWarps * (HEAD_DIM + 2)];
#endif

    const int split = blockIdx.x, hkv = blockIdx.y, b = blockIdx.z;
    const int nsplit = num_splits(p);
    const Ws w = ws_views(ws, p);
    const int hq_begin = hkv * p.q_per_kv, hq_end = hq_begin + p.q_per_kv;

#if SPLIT_MODE == 2
    /* zero this KV head's accumulators for the combine launch that follows */
    if (split == 0) {
        for (int i = threadIdx.x; i < p.q_per_kv * (HEAD_DIM + 2); i += DEC_THREADS) {
            const int hh = i / (HEAD_DIM + 2), e = i % (HEAD_DIM + 2);
            const long long bh = (long long)b * p.Hq + hq_begin + hh;
            if (e < HEAD_DIM) w.acc_o[bh * HEAD_DIM + e] = 0.f;
            else if (e == HEAD_DIM) w.acc_l[bh] = 0.f;
            else w.count[bh] = 0u;
        }
    }
#endif
    if (split >= nsplit) return; /* SPLIT_MODE 1: fewer splits than the grid has */

    /* keys this split covers: [r_begin, r_end), clipped by causal / window */
    const int Nkv = p.Nkv;
    const int chunk = (Nkv + nsplit - 1) / nsplit;
    int r_begin = split * chunk;
    int r_end = min(Nkv, r_begin + chunk);
    const int pos = p.kv_offset;
    if (p.causal) r_end = min(r_end, pos + 1);
    if (p.window > 0) {
        r_begin = max(r_begin, pos - p.window);
        r_end = min(r_end, pos + p.window + 1);
    }

    const long long kv_off = ((long long)b * p.Hkv + hkv) * Nkv * HEAD_DIM;
    const elem_t* kb = k + kv_off;
    const elem_t* vb = v + kv_off;
    const __half* mask_row = mask + (long long)b * Nkv; /* [B][Nq = 1][Nkv] */

#if DEC_MMA == 2
    const long long bs = (long long)b * p.Hq * NUM_SPLITS + split;
    const ContiguousKv kv{kb, vb, q + (long long)b * p.Hq * HEAD_DIM, w.part_o + bs * HEAD_DIM, w.part_ml + bs * 2};
    /* GQA: the query heads are the mma n dimension, 8 per n-tile; DEC_MAX_QPK 16: two n-tiles
     * (16 heads per pass over K / V), else one (8 heads per pass; more heads take more passes) */
#if DEC_MAX_QPK >= 16
    for (int h0 = hq_begin; h0 < hq_end; h0 += 16) {
        if (hq_end - h0 > 8)
            ring_pass<2>(kv, mask_row, p, pos, h0, hq_end, r_begin, r_end, dsmem);
        else
            ring_pass<1>(kv, mask_row, p, pos, h0, hq_end, r_begin, r_end, dsmem);
    }
#else
    for (int h0 = hq_begin; h0 < hq_end; h0 += 8)
        ring_pass<1>(kv, mask_row, p, pos, h0, hq_end, r_begin, r_end, dsmem);
#endif
#elif DEC_MMA
    /* GQA: up to 16 query heads per pass (the mma rows); rows 8..15 only when needed */
    for (int h0 = hq_begin; h0 < hq_end; h0 += 16) {
        if (hq_end - h0 > 8)
            split_pass_mma<true>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
        else
            split_pass_mma<false>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
    }
#else
    /* GQA: QPK query heads per pass over K / V */
    const int qpk = p.q_per_kv;
    if (qpk == 1 || DEC_MAX_QPK == 1) {
        for (int h0 = hq_begin; h0 < hq_end; h0 += 1)
            split_pass<1>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
#if DEC_MAX_QPK >= 2
    } else if (qpk == 2 || DEC_MAX_QPK == 2) {
        for (int h0 = hq_begin; h0 < hq_end; h0 += 2)
            split_pass<2>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
#endif
#if DEC_MAX_QPK >= 4
    } else if (qpk <= 4 || DEC_MAX_QPK == 4) {
        for (int h0 = hq_begin; h0 < hq_end; h0 += 4)
            split_pass<4>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
#endif
#if DEC_MAX_QPK >= 8
    } else {
        for (int h0 = hq_begin; h0 < hq_end; h0 += 8)
            split_pass<8>(q, kb, vb, mask_row, p, b, h0, hq_end, r_begin, r_end, split, w, red);
#endif
    }
#endif
}

/* ---------------------------------------------------------- combine kernel */
extern "C" __global__ void __launch_bounds__(DEC_COMBINE_THREADS)
flash_attn_decode_combine(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
                          const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
                          float* __restrict__ ws, attn_params p) {
    using namespace fd;
    (void)q;
    (void)k;
    (void)v;
    (void)mask;
    const int h = blockIdx.y, b = blockIdx.z;
    const long long bh = (long long)b * p.Hq + h;
    const Ws w = ws_views(ws, p);
    const int nsplit = num_splits(p);
    const float* ml = w.part_ml + bh * NUM_SPLITS * 2;
    const float* po = w.part_o + bh * NUM_SPLITS * HEAD_DIM;
    elem_t* oh = o + bh * HEAD_DIM; /* [B][Hq][Nq = 1][D] */

    /* the global max over the splits (and the sink), in split order */
    const float sink2 = p.has_sinks ? sinks[h] * kLog2e : FD_NEG_INF;
    float M = sink2;
    for (int s = 0; s < nsplit; ++s) M = fmaxf(M, ml[s * 2]);
    const float Mu = (M == FD_NEG_INF) ? 0.f : M;

#if SPLIT_MODE == 2
    const int s = blockIdx.x;
    const float wgt = ex2(ml[s * 2] - Mu);
    for (int d = threadIdx.x; d < HEAD_DIM; d += DEC_COMBINE_THREADS)
        atomicAdd(&w.acc_o[bh * HEAD_DIM + d], wgt * po[s * HEAD_DIM + d]);
    if (threadIdx.x == 0) atomicAdd(&w.acc_l[bh], wgt * ml[s * 2 + 1]);
    __threadfence();
    __syncthreads();
    __shared__ unsigned last;
    if (threadIdx.x == 0) last = (atomicAdd(&w.count[bh], 1u) == (unsigned)(nsplit - 1)) ? 1u : 0u;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const float L = __ldcg(&w.acc_l[bh]) + (p.has_sinks ? ex2(sink2 - Mu) : 0.f);
    const float inv = (M == FD_NEG_INF || !(L > 0.f)) ? 0.f : 1.f / L;
    for (int d = threadIdx.x; d < HEAD_DIM; d += DEC_COMBINE_THREADS)
        oh[d] = float_to_elem(__ldcg(&w.acc_o[bh * HEAD_DIM + d]) * inv);
#else
    if (blockIdx.x != 0) return;
    float L = p.has_sinks ? ex2(sink2 - Mu) : 0.f;
    for (int s = 0; s < nsplit; ++s) L += ex2(ml[s * 2] - Mu) * ml[s * 2 + 1];
    const float inv = (M == FD_NEG_INF || !(L > 0.f)) ? 0.f : 1.f / L;
    for (int d = threadIdx.x; d < HEAD_DIM; d += DEC_COMBINE_THREADS) {
        float acc = 0.f;
        for (int s = 0; s < nsplit; ++s) acc = fmaf(ex2(ml[s * 2] - Mu), po[s * HEAD_DIM + d], acc);
        oh[d] = float_to_elem(acc * inv);
    }
#endif
}

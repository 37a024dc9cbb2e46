/* flash_attn_fwd_wgmma: prefill forward on Hopper's warpgroup MMA (sm_90a).
 *
 * The same operation and run-time contract as flash_attn_fwd.cu (fp16 / bf16
 * Q, K, V, O; fp32 accumulation; causal, sliding window, additive mask,
 * ALiBi, sinks, GQA), with the matrix products on wgmma instead of mma.sync:
 * a warpgroup (4 warps) owns 64 query rows and issues m64n64k16 instructions
 * that read K and V straight from shared memory, so no ldmatrix and no
 * per-warp B fragments in registers.
 *
 *   S = Q K^T   A = Q (registers when QK_RS > 0, else shared memory), B = K
 *   O += P V    A = P (registers: the S accumulators, rescaled and packed),
 *               B = V read transposed (MN-major) from the same tile layout
 *
 * Work split: one block per (BLOCK_M query rows, query head, sequence),
 * BLOCK_M / 64 warpgroups.  K and V tiles arrive through a cp.async pipeline
 * of STAGES buffers in the 128-byte-swizzled panel layout of cuda/ptx/wgmma.cuh.
 * Online softmax in the log2 domain as in flash_attn_fwd.cu.
 *
 * Launch (the spec): grid [ceil_div(Nq, BLOCK_M), Hq, B], block [2 * BLOCK_M],
 * dynamic shared memory FW_SMEM_BYTES (below; the spec's "shared_bytes").
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
#ifndef BLOCK_M
#define BLOCK_M 128 /* query rows per block: 64 per warpgroup */
#endif
#ifndef BLOCK_N
#define BLOCK_N 128 /* keys per KV tile: a multiple of 64 */
#endif
#ifndef STAGES
#define STAGES 2
#endif
/* How S = Q K^T reads Q: 0 = from shared memory (wgmma SS); 1 = from registers
 * (wgmma RS), ldmatrix'd from shared memory at every tile; 2 = from registers
 * loaded once and kept across tiles.  For 2, Q's fragments are XOR-ed with a
 * run-time 0 after each S product: without an in-loop definition ptxas 13.0
 * gave their registers to P (wrong results at D=64, BLOCK_N=64; docs/kernels/flash_attn_fwd_wgmma.md). */
#ifndef QK_RS
#define QK_RS 1
#endif
/* 1: FA3's intra-warpgroup overlap (S of the next tile issued before P V of
 * this one; needs STAGES >= 3 and a second set of S / P registers); 0: serial */
#ifndef OVERLAP
#define OVERLAP 0
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

#if DTYPE != 1 && DTYPE != 2
#error "flash_attn_fwd_wgmma: DTYPE must be 1 (fp16) or 2 (bf16)"
#endif
#if HEAD_DIM % 8 != 0 || HEAD_DIM < 8 || HEAD_DIM > 256
#error "flash_attn_fwd_wgmma: HEAD_DIM must be a multiple of 8 in 8..256"
#endif

/* Padded head dimensions: S = Q K^T runs over FW_DIM_K columns (HEAD_DIM rounded
 * up to the k16 step), O = P V over FW_DIM_P (whole n64 pieces = whole panels).
 * Shared-memory rows are FW_DIM_P wide; the padded columns the products read are
 * zero-filled (cp.async src-size 0, nothing read from global memory) and O's
 * padded columns are never stored. For D = 64, 128, 256 both are D and every
 * padding test is a compile-time constant. */
#define FW_DIM_K ((HEAD_DIM + 15) / 16 * 16)
#define FW_DIM_P ((HEAD_DIM + 63) / 64 * 64)
#if BLOCK_M % 64 != 0 || BLOCK_M < 64 || BLOCK_M > 192
#error "flash_attn_fwd_wgmma: BLOCK_M must be 64, 128 or 192 (one warpgroup per 64 rows)"
#endif
#if BLOCK_N % 64 != 0 || BLOCK_N < 64 || BLOCK_N > 192
#error "flash_attn_fwd_wgmma: BLOCK_N must be 64, 128 or 192"
#endif
#if QK_RS != 0 && QK_RS != 1 && QK_RS != 2
#error "flash_attn_fwd_wgmma: QK_RS must be 0, 1 or 2"
#endif
#if OVERLAP != 0 && OVERLAP != 1
#error "flash_attn_fwd_wgmma: OVERLAP must be 0 or 1"
#endif
#if OVERLAP && STAGES < 3
#error "flash_attn_fwd_wgmma: OVERLAP needs STAGES >= 3 (the tile of P V, the next tile of S, one loading)"
#endif
#if STAGES < 2 || STAGES > 4
#error "flash_attn_fwd_wgmma: STAGES must be 2..4"
#endif

/* Q tile + STAGES x (K, V) tiles, plus 1024 bytes to align the first panel */
#define FW_SMEM_BYTES (1024 + 2 * (BLOCK_M * FW_DIM_P + 2 * STAGES * BLOCK_N * FW_DIM_P))
#if FW_SMEM_BYTES > 232448
#error "flash_attn_fwd_wgmma: shared memory over the 227 KB per-block limit"
#endif

#if DTYPE == 1
typedef __half elem_t;
#else
typedef __nv_bfloat16 elem_t;
#define WGMMA_AB "bf16"
#endif
#include "cuda/ptx/cp_async.cuh"
#include "cuda/ptx/ldmatrix.cuh"
#include "cuda/ptx/math.cuh"
#include "cuda/ptx/mma.cuh"
#include "cuda/ptx/wgmma.cuh"
#include "cuda/attn_score_mods.cuh"
#include "cuda/online_softmax.cuh"
#include "cuda/wgmma_output.cuh"

namespace fw {

using namespace ptx;

constexpr int kThreads = 2 * BLOCK_M;          /* 128 per warpgroup of 64 rows */
constexpr int kKS = FW_DIM_K / 16;             /* k-steps of Q K^T */
constexpr int kSN = BLOCK_N / 64;              /* n64 pieces of S */
constexpr int kON = FW_DIM_P / 64;             /* n64 pieces of O (= panels of a row) */
constexpr int kPKS = BLOCK_N / 16;             /* k-steps of P V */
constexpr int kRowChunks = HEAD_DIM / 8;       /* 16-byte chunks per row in global memory */
constexpr int kQKChunks = FW_DIM_K / 8;        /* chunks of Q / K rows the products read */
constexpr int kVChunks = FW_DIM_P / 8;         /* chunks of V rows the products read */
constexpr int kQBytes = 2 * BLOCK_M * FW_DIM_P;
constexpr int kTileBytes = 2 * BLOCK_N * FW_DIM_P; /* one K or one V tile */
constexpr float kLog2e = 1.4426950408889634f;

#define kNegInf (__int_as_float(0xff800000))

/* byte offset of (row, 16-byte chunk) in a tile of ROWS rows stored as
 * 128-byte-swizzled panels of 64 columns (cuda/ptx/wgmma.cuh) */
template <int ROWS>
__device__ __forceinline__ unsigned panel_off(int row, int chunk) {
    return static_cast<unsigned>((chunk >> 3) * ROWS * 128 + row * 128 + (((chunk & 7) ^ (row & 7)) << 4));
}

/* ROWS x COLS chunks of src (row stride HEAD_DIM) into the panel layout at
 * dst; rows at or past `valid` and chunks past HEAD_DIM (padding) are
 * zero-filled without being read. */
template <int ROWS, int COLS>
__device__ __forceinline__ void load_tile(unsigned dst, const elem_t* __restrict__ src, int valid, int tid) {
    constexpr int kChunks = ROWS * COLS;
#pragma unroll
    for (int i0 = 0; i0 < kChunks; i0 += kThreads) {
        const int i = i0 + tid;
        if (kChunks % kThreads == 0 || i < kChunks) {
            const int r = i / COLS, c = i % COLS;
            const bool real = COLS == kRowChunks || c < kRowChunks;
            cp_async16_zfill(dst + panel_off<ROWS>(r, c), src + r * HEAD_DIM + (real ? c : 0) * 8,
                             real && r < valid ? 16 : 0);
        }
    }
}

}  // namespace fw

/* ------------------------------------------------------------------- kernel */
extern "C" __global__ void __launch_bounds__(fw::kThreads, MIN_BLOCKS)
flash_attn_fwd_wgmma(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
                     const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
                     float* __restrict__ ws, attn_params p) {
    using namespace fw;
    (void)ws;
    extern __shared__ unsigned char smem_raw[];
    /* panels must start on 1024-byte boundaries (the swizzle atom) */
    const unsigned sQa = (smem_addr(smem_raw) + 1023u) & ~1023u;
    const unsigned sKa = sQa + kQBytes;
    const unsigned sVa = sKa + STAGES * kTileBytes;

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    [[maybe_unused]] const int wg = warp >> 2; /* warpgroup: rows 64 wg .. 64 wg + 63 of the block */
    const int wrow = warp * 16;     /* this warp's 16 rows inside the block */
    const int m_block = gridDim.x - 1 - blockIdx.x; /* heavy (late, for causal) row blocks first */
    const int h = blockIdx.y;
    const int b = blockIdx.z;
    const int hkv = h / p.q_per_kv;
    const int Nq = p.Nq, Nkv = p.Nkv;
    const int m0 = m_block * BLOCK_M;

    const long long q_base = ((long long)(b * p.Hq + h) * Nq) * HEAD_DIM;
    const long long kv_base = ((long long)(b * p.Hkv + hkv) * Nkv) * HEAD_DIM;
    const elem_t* __restrict__ kg = k + kv_base;
    const elem_t* __restrict__ vg = v + kv_base;
    elem_t* __restrict__ og = o + q_base;

    /* ---- KV tile range of this block (fully masked tiles are skipped) ---- */
    int tb, ntiles;
    score_mods::kv_tile_range(p, m0, BLOCK_M, BLOCK_N, tb, ntiles);

    /* this warp's positions, for the per-warp "needs per-element masking" test */
    const int w_pos_lo = p.kv_offset + m0 + wrow;
    const int w_pos_hi = p.kv_offset + min(m0 + wrow + 16, Nq) - 1;
    const bool has_alibi = p.max_bias > 0.f;
    const bool always_generic = p.has_mask || has_alibi;
    const float slope2 = score_mods::alibi_slope_log2(p, h);
    const float sl2 = p.scale * kLog2e;
    const int lr = lane >> 2, lc = (lane & 3) * 2; /* accumulator row (and +8), column pair */

    auto load_kv = [&](int stage, int tile) {
        const int n0 = tile * BLOCK_N;
        load_tile<BLOCK_N, kQKChunks>(sKa + stage * kTileBytes, kg + (long long)n0 * HEAD_DIM, Nkv - n0, tid);
        load_tile<BLOCK_N, kVChunks>(sVa + stage * kTileBytes, vg + (long long)n0 * HEAD_DIM, Nkv - n0, tid);
    };

    /* ---- prologue: Q and the first STAGES - 1 tiles, one commit group per tile ---- */
    load_tile<BLOCK_M, kQKChunks>(sQa, q + q_base + (long long)m0 * HEAD_DIM, Nq - m0, tid);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) load_kv(s, tb + s);
        cp_async_commit();
    }

    /* QK_RS: this lane's ldmatrix row of the warp's Q rows; the A fragment of k-step
     * ks is (rows 0-7 | 8-15) x (k lo | k hi), chunk 2 ks + lane / 16 */
    [[maybe_unused]] const int q_lane_row = wrow + (lane & 15);
#if QK_RS == 2
    unsigned qf[kKS][4];
    cp_async_wait<STAGES - 2>(); /* Q (and the first tile) landed */
    __syncthreads();
#pragma unroll
    for (int ks = 0; ks < kKS; ++ks) ldsm_x4(sQa + panel_off<BLOCK_M>(q_lane_row, 2 * ks + (lane >> 4)), qf[ks]);
#endif

    float oacc[kON][32];
#pragma unroll
    for (int j = 0; j < kON; ++j)
#pragma unroll
        for (int i = 0; i < 32; ++i) oacc[j][i] = 0.f;
    float row_m[2] = {kNegInf, kNegInf}, row_l[2] = {0.f, 0.f};
    /* 0 at run time, unknown to the compiler: XOR-ing register-A fragments with it
     * each tile gives them an in-loop definition (see QK_RS) */
    [[maybe_unused]] const unsigned opaque0 = (unsigned)p.Nq >> 31;

    /* S = Q K^T of the tile in `stage`: issued and committed, not waited for */
    auto issue_s = [&](int stage, float (&s)[kSN][32]) {
        const unsigned k_st = sKa + stage * kTileBytes;
#if QK_RS == 1
        unsigned qf[kKS][4];
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks) ldsm_x4(sQa + panel_off<BLOCK_M>(q_lane_row, 2 * ks + (lane >> 4)), qf[ks]);
#endif
        wgmma::fence();
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks) {
            const unsigned k_off = (ks >> 2) * BLOCK_N * 128 + (ks & 3) * 32;
#pragma unroll
            for (int j = 0; j < kSN; ++j) {
                const unsigned long long bd = wgmma::desc_sw128(k_st + k_off + j * 64 * 128);
#if QK_RS
                wgmma::mma_rs<0>(s[j], qf[ks], bd, ks > 0);
#else
                const unsigned long long ad =
                    wgmma::desc_sw128(sQa + (ks >> 2) * BLOCK_M * 128 + wg * 64 * 128 + (ks & 3) * 32);
                wgmma::mma_ss(s[j], ad, bd, ks > 0);
#endif
            }
        }
        wgmma::commit();
    };

    /* after S's wait: pin its accumulators (and, QK_RS = 2, re-define Q's fragments) */
    auto s_done = [&](float (&s)[kSN][32]) {
#pragma unroll
        for (int j = 0; j < kSN; ++j) wgmma::hold(s[j]);
#if QK_RS == 2
#pragma unroll
        for (int ks = 0; ks < kKS; ++ks)
#pragma unroll
            for (int e = 0; e < 4; ++e) qf[ks][e] ^= opaque0;
#endif
    };

    /* masking and online softmax of S (keys n0 ..): P packed into A fragments, the
     * row state (max, sum) updated; O must then be scaled by alpha */
    auto softmax = [&](float (&s)[kSN][32], int n0, unsigned (&pk)[kSN][16], float (&alpha)[2]) {
        float mul = sl2; /* s * mul is the log2-domain logit */
        if (score_mods::tile_needs_mask(p, always_generic, n0, BLOCK_N, w_pos_lo, w_pos_hi)) {
            /* tiles crossing a causal / window / Nkv edge; mask, ALiBi */
            mul = 1.f;
            score_mods::mask_tile(s, p, mask + (long long)b * Nq * Nkv, always_generic, slope2, sl2, m0 + wrow + lr, n0,
                                  lc);
        }
        /* pk[piece][2 c + hh]: columns 8 c + lc, lc + 1 of row hh */
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            float mx = kNegInf;
#pragma unroll
            for (int j = 0; j < kSN; ++j)
#pragma unroll
                for (int c = 0; c < 8; ++c) mx = fmaxf(mx, fmaxf(s[j][4 * c + 2 * hh], s[j][4 * c + 2 * hh + 1]));
            const float m_use = online_softmax::advance_max(row_m[hh], online_softmax::quad_max(mx) * mul, alpha[hh]);
            float l = row_l[hh] * alpha[hh];
#pragma unroll
            for (int j = 0; j < kSN; ++j)
#pragma unroll
                for (int c = 0; c < 8; ++c) {
                    const float p0 = ex2(fmaf(s[j][4 * c + 2 * hh], mul, -m_use));
                    const float p1 = ex2(fmaf(s[j][4 * c + 2 * hh + 1], mul, -m_use));
                    l += p0 + p1;
                    pk[j][2 * c + hh] = pack2<elem_t>(p0, p1);
                }
            row_l[hh] = l;
        }
    };

    auto rescale_o = [&](const float (&alpha)[2]) {
#pragma unroll
        for (int j = 0; j < kON; ++j) online_softmax::rescale(oacc[j], alpha);
    };

    /* O += P V of the tile in `stage`: issued and committed, not waited for */
    auto issue_pv = [&](int stage, const unsigned (&pk)[kSN][16]) {
        const unsigned v_st = sVa + stage * kTileBytes;
#pragma unroll
        for (int j = 0; j < kON; ++j) wgmma::hold(oacc[j]);
        wgmma::fence();
#pragma unroll
        for (int kk = 0; kk < kPKS; ++kk) {
            /* keys 16 kk .. 16 kk + 15: n8 chunks 2 (kk % 4) and + 1 of S piece kk / 4 */
            const unsigned a[4] = {pk[kk >> 2][4 * (kk & 3)], pk[kk >> 2][4 * (kk & 3) + 1],
                                   pk[kk >> 2][4 * (kk & 3) + 2], pk[kk >> 2][4 * (kk & 3) + 3]};
#pragma unroll
            for (int j = 0; j < kON; ++j)
                wgmma::mma_rs<1>(oacc[j], a, wgmma::desc_sw128(v_st + j * BLOCK_N * 128 + kk * 16 * 128), 1);
        }
        wgmma::commit();
    };

#if OVERLAP == 0
    /* each tile: S, wait, softmax, P V, wait */
#pragma unroll 1
    for (int it = 0; it < ntiles; ++it) {
        const int stage = it % STAGES;
        cp_async_wait<STAGES - 2>(); /* this tile landed (this thread's copies) */
        wgmma::fence_proxy_async(); /* ... visible to wgmma */
        __syncthreads(); /* every thread's copies; the buffer refilled next was read by all */
        if (it + STAGES - 1 < ntiles) load_kv((it + STAGES - 1) % STAGES, tb + it + STAGES - 1);
        cp_async_commit();

        float s[kSN][32];
        issue_s(stage, s);
        wgmma::wait<0>();
        s_done(s);
        unsigned pk[kSN][16];
        float alpha[2];
        softmax(s, (tb + it) * BLOCK_N, pk, alpha);
        rescale_o(alpha);
        issue_pv(stage, pk);
        wgmma::wait<0>();
#pragma unroll
        for (int j = 0; j < kON; ++j) wgmma::hold(oacc[j]);
    }
#else
    /* FA3's intra-warpgroup overlap: S of tile it + 1 and P V of tile it are in
     * flight together; the softmax of tile it + 1 runs while P V still computes. */
    unsigned pk[kSN][16];
    if (ntiles > 0) {
        cp_async_wait<STAGES - 2>(); /* tile 0 landed */
        wgmma::fence_proxy_async();
        __syncthreads();
        float s[kSN][32];
        issue_s(0, s);
        wgmma::wait<0>();
        s_done(s);
        float alpha[2];
        softmax(s, tb * BLOCK_N, pk, alpha); /* O is still 0: alpha unused */
    }
    /* no wgmma under a branch or a run-time condition: ptxas serializes every
     * wgmma of the kernel (C7514) when it cannot prove where accumulators are read */
#pragma unroll 1
    for (int it = 0; it + 1 < ntiles; ++it) {
        cp_async_wait<STAGES - 3>(); /* tile it + 1 landed */
        wgmma::fence_proxy_async();
        __syncthreads(); /* ... for every thread; P V of tile it - 1 done everywhere: its buffer is free */
        if (it + STAGES - 1 < ntiles) load_kv((it + STAGES - 1) % STAGES, tb + it + STAGES - 1);
        cp_async_commit();

        float s[kSN][32];
        issue_s((it + 1) % STAGES, s);
        issue_pv(it % STAGES, pk);
        wgmma::wait<1>(); /* S of tile it + 1 (committed first) done */
        s_done(s);
        unsigned pk_next[kSN][16];
        float alpha[2];
        softmax(s, (tb + it + 1) * BLOCK_N, pk_next, alpha);
        wgmma::wait<0>(); /* P V of tile it done: O and pk free */
#pragma unroll
        for (int j = 0; j < kON; ++j) wgmma::hold(oacc[j]);
        rescale_o(alpha);
#pragma unroll
        for (int j = 0; j < kSN; ++j)
#pragma unroll
            for (int i = 0; i < 16; ++i) pk[j][i] = pk_next[j][i] ^ opaque0; /* a real in-loop definition */
    }
    if (ntiles > 0) { /* P V of the last tile */
        issue_pv((ntiles - 1) % STAGES, pk);
        wgmma::wait<0>();
#pragma unroll
        for (int j = 0; j < kON; ++j) wgmma::hold(oacc[j]);
    }
#endif
    cp_async_wait<0>(); /* nothing in flight at exit (Q alone when no tile ran) */

    /* ---- epilogue: full row sums, sinks, normalize, store ---- */
    const float sink2 = p.has_sinks ? sinks[h] * kLog2e : kNegInf;
    store_output_rows<elem_t, kON, HEAD_DIM>(oacc, row_m, row_l, sink2, p.has_sinks, og, m0 + wrow + lr, Nq, lc);
}

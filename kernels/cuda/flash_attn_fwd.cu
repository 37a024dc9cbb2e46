/* flash_attn_fwd: FlashAttention-2-style prefill forward for attn-tune.
 *
 * fp16 / bf16 Q, K, V, O (DTYPE 1 / 2), fp32 accumulation on the tensor cores
 * through mma.sync.m16n8k16 + ldmatrix (inline PTX), a cp.async K/V pipeline of
 * STAGES buffers in XOR-swizzled shared memory, online softmax in the log2
 * domain (scale * log2(e) folded into one FFMA before ex2.approx).
 *
 * Work split: one block per (BLOCK_M query rows, query head, sequence); the
 * WARPS_M warps split the BLOCK_M rows (BLOCK_M / WARPS_M rows each, a multiple
 * of 16 = one mma row tile).  Every warp walks all KV tiles of the block; S and
 * P live in registers and P is reused directly as the A operand of the PV mma.
 *
 * Run-time features (attn_params): causal (bottom-right aligned; fully masked
 * KV tiles skipped, per-element masking only on the diagonal tiles), sliding
 * window (tiles outside skipped), additive half mask, ALiBi, sinks (max and
 * denominator only), GQA (head h reads KV head h / q_per_kv).  Nq and Nkv need
 * not be multiples of the tiles.
 *
 * Launch (the spec): grid [ceil_div(Nq, BLOCK_M), Hq, B], block [32 * WARPS_M],
 * dynamic shared memory FA_SMEM_BYTES (below; the spec's "shared_bytes" is the
 * same expression).  NVRTC-clean: beyond cuda_fp16.h / cuda_bf16.h only the PTX
 * helpers of cuda/ptx/ and the shared online softmax (cuda/online_softmax.cuh) are
 * included.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/attn_params.h"
#include "cuda/ptx/cp_async.cuh"
#include "cuda/ptx/ldmatrix.cuh"
#include "cuda/ptx/math.cuh"
#include "cuda/ptx/mma.cuh"
#include "cuda/online_softmax.cuh"

/* ------------------------------------------------------------------ tunables */
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef DTYPE
#define DTYPE 1 /* 1 = fp16, 2 = bf16 */
#endif
#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef WARPS_M
#define WARPS_M 4
#endif
#ifndef WARPS_N
#define WARPS_N 1
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef DV_TILE
#define DV_TILE HEAD_DIM
#endif

/* Head dimensions that are not a multiple of the mma tiles are padded: the
 * products run over FA_DIM_K columns (HEAD_DIM rounded up to the k16 step, also
 * a whole number of n8-tile pairs for P V), the padded columns are zero-filled
 * in shared memory (cp.async src-size 0, nothing read) and never stored. Rows in
 * shared memory are FA_DIM_S wide (a power of two of 16-byte chunks, what the
 * swizzle and the copy mapping need). For D = 64, 128, 256 all three are D and
 * every padding test below is a compile-time constant. */
#define FA_DIM_K ((HEAD_DIM + 15) / 16 * 16)
#define FA_DIM_S (FA_DIM_K <= 16 ? 16 : FA_DIM_K <= 32 ? 32 : FA_DIM_K <= 64 ? 64 : FA_DIM_K <= 128 ? 128 : 256)
/* V tile: padded like K in one pass; DV_TILE < HEAD_DIM (passes) takes no padding */
#define FA_DV_K (DV_TILE == HEAD_DIM ? FA_DIM_K : DV_TILE)
#define FA_DV_S (DV_TILE == HEAD_DIM ? FA_DIM_S : DV_TILE)

/* 1: the warp's Q fragments are loaded once into registers; 0: re-read from
 * shared memory (ldmatrix) at every k-step (frees registers for big tiles). */
#ifndef Q_IN_REGS
#define Q_IN_REGS ((BLOCK_M / WARPS_M) * FA_DIM_K <= 2048 ? 1 : 0)
#endif
/* second argument of __launch_bounds__ */
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

/* ------------------------------------------------------- configuration checks */
#if DTYPE != 1 && DTYPE != 2
#error "flash_attn_fwd: DTYPE must be 1 (fp16) or 2 (bf16)"
#endif
#if HEAD_DIM % 8 != 0 || HEAD_DIM < 8 || HEAD_DIM > 256
#error "flash_attn_fwd: HEAD_DIM must be a multiple of 8 in 8..256"
#endif
#if WARPS_N != 1
#error "flash_attn_fwd: WARPS_N must be 1 (the KV-split-across-warps variant is not implemented)"
#endif
#if STAGES != 2 && STAGES != 3
#error "flash_attn_fwd: STAGES must be 2 or 3"
#endif
#if (BLOCK_M % (16 * WARPS_M)) != 0
#error "flash_attn_fwd: BLOCK_M must be a multiple of 16 * WARPS_M"
#endif
#if BLOCK_N != 32 && BLOCK_N != 64 && BLOCK_N != 128
#error "flash_attn_fwd: BLOCK_N must be 32, 64 or 128"
#endif
#if DV_TILE != HEAD_DIM && ((HEAD_DIM % DV_TILE) != 0 || (DV_TILE != 32 && DV_TILE != 64 && DV_TILE != 128))
#error "flash_attn_fwd: DV_TILE must be HEAD_DIM, or 32, 64 or 128 dividing HEAD_DIM"
#endif
#if Q_IN_REGS != 0 && Q_IN_REGS != 1
#error "flash_attn_fwd: Q_IN_REGS must be 0 or 1"
#endif

/* the exact dynamic shared-memory size, in bytes (Q tile + STAGES x (K, V) tiles) */
#define FA_SMEM_BYTES (2 * (BLOCK_M * FA_DIM_S + STAGES * BLOCK_N * (FA_DIM_S + FA_DV_S)))
#if FA_SMEM_BYTES > 232448
#error "flash_attn_fwd: shared memory over the 227 KB per-block limit"
#endif

#if DTYPE == 1
typedef __half elem_t;
#else
typedef __nv_bfloat16 elem_t;
#endif

namespace fa {

using namespace ptx;

constexpr int kThreads = 32 * WARPS_M * WARPS_N;
constexpr int kWarpRows = BLOCK_M / WARPS_M;     /* query rows per warp */
constexpr int kMT = kWarpRows / 16;              /* mma row tiles per warp */
constexpr int kNT = BLOCK_N / 8;                 /* n-tiles of S */
constexpr int kKS = FA_DIM_K / 16;               /* k-steps of Q K^T */
constexpr int kDT = FA_DV_K / 8;                 /* n-tiles of O */
constexpr int kPKS = BLOCK_N / 16;               /* k-steps of P V */
constexpr int kPasses = HEAD_DIM / DV_TILE;
constexpr int kQChunks = FA_DIM_S / 8;           /* 16-byte chunks per Q / K row in shared memory */
constexpr int kVChunks = FA_DV_S / 8;            /* 16-byte chunks per V row (one pass) */
constexpr int kDChunks = HEAD_DIM / 8;           /* chunks of a Q / K / O row in global memory */
constexpr int kDKChunks = FA_DIM_K / 8;          /* chunks the products read (the rest: never touched) */
constexpr int kDVChunks = DV_TILE / 8;           /* chunks of V per pass in global memory */
constexpr int kDVKChunks = FA_DV_K / 8;
constexpr int kQElems = BLOCK_M * FA_DIM_S;
constexpr int kKElems = BLOCK_N * FA_DIM_S;
constexpr int kVElems = BLOCK_N * FA_DV_S;
constexpr float kLog2e = 1.4426950408889634f;

static_assert(kMT >= 1 && kMT <= 4, "1..4 mma row tiles per warp");
static_assert((BLOCK_M * kQChunks) % kThreads == 0, "Q tile chunks must divide evenly among threads");
static_assert((BLOCK_N * kQChunks) % kThreads == 0, "K tile chunks must divide evenly among threads");
static_assert((BLOCK_N * kVChunks) % kThreads == 0, "V tile chunks must divide evenly among threads");
static_assert((kWarpRows * kVChunks) % 32 == 0, "O tile chunks must divide evenly among a warp");
static_assert(kNT % 2 == 0 && kDT % 2 == 0, "ldmatrix.x4 loads n-tiles in pairs");

#define kNegInf (__int_as_float(0xff800000))

/* an opaque 0: values derived from it inside a loop are recomputed there instead
 * of being hoisted and kept live (in registers or spilled) across the whole loop */
__device__ __forceinline__ int opaque_zero() {
    int z;
    asm volatile("mov.u32 %0, 0;\n" : "=r"(z));
    return z;
}

/* XOR swizzle of 16-byte chunks inside a row of R chunks: a permutation of each
 * group of rows covering 128 bytes, so 8 consecutive rows at one logical chunk
 * (an ldmatrix 8x8 read, a cp.async row) hit 8 different bank groups. */
template <int R>
__device__ __forceinline__ int swz(int row, int chunk) {
    if (R >= 8) return chunk ^ (row & 7);
    else if (R == 4) return chunk ^ ((row >> 1) & 3);
    else return chunk ^ ((row >> 2) & 1);
}
/* byte offset of (row, 16-byte chunk) in a swizzled tile of R chunks per row */
template <int R>
__device__ __forceinline__ unsigned tile_off(int row, int chunk) {
    return static_cast<unsigned>(row * R * 16 + swz<R>(row, chunk) * 16);
}

/* ldmatrix addressing: a lane reads row (lane_row + 16 t) and logical chunk
 * (2 c + hi) of a tile of R chunks per row.  16 t changes neither (row & 7) nor
 * ((row >> 1) & 3), and bits 4..6 of a byte offset hold exactly the (swizzled)
 * chunk's low bits, so
 *   offset(t, c) = (off0 ^ 32 (c % 4)) + 128 (c / 4) + 256 t R
 * with off0 = tile_off(lane_row, hi): one register per operand, one LOP3 per
 * distinct c (shared by all t). */
template <int R>
struct LdsmLane {
    static constexpr int kN = (R / 2 < 4) ? R / 2 : 4;
    unsigned off0;
    __device__ __forceinline__ void init(int lane_row, int hi) { off0 = tile_off<R>(lane_row, hi); }
    __device__ __forceinline__ unsigned at(int t, int c) const {
        return (off0 ^ (unsigned)((c % kN) * 32)) + (unsigned)((c / kN) * 128 + t * 16 * R * 16);
    }
};

}  // namespace fa

/* ------------------------------------------------------------------- kernel */
extern "C" __global__ void __launch_bounds__(fa::kThreads, MIN_BLOCKS)
flash_attn_fwd(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
               const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
               float* __restrict__ ws, attn_params p) {
    using namespace fa;
    (void)ws;
    extern __shared__ __align__(128) unsigned char smem[];

    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    /* heavy (late, for causal) row blocks first */
    const int m_block = gridDim.x - 1 - blockIdx.x;
    const int h = blockIdx.y;
    const int b = blockIdx.z;
    const int hkv = h / p.q_per_kv;
    const int Nq = p.Nq, Nkv = p.Nkv;
    const int m0 = m_block * BLOCK_M;

    const long long q_base = ((long long)(b * p.Hq + h) * Nq) * HEAD_DIM;
    const long long kv_base = ((long long)(b * p.Hkv + hkv) * Nkv) * HEAD_DIM;
    const elem_t* __restrict__ qg = q + q_base;
    const elem_t* __restrict__ kg = k + kv_base;
    const elem_t* __restrict__ vg = v + kv_base;
    elem_t* __restrict__ og = o + q_base;

    unsigned char* sQ = smem;
    unsigned char* sK = smem + 2 * kQElems;
    unsigned char* sV = sK + 2 * STAGES * kKElems;
    const unsigned sQa = smem_addr(sQ);
    const unsigned sKa = smem_addr(sK);
    const unsigned sVa = smem_addr(sV);

    /* ---- KV tile range of this block (fully masked tiles are skipped) ---- */
    const int m_last = min(m0 + BLOCK_M, Nq) - 1;
    const int pos_lo = p.kv_offset + m0, pos_hi = p.kv_offset + m_last;
    int n_lo = 0, n_hi = Nkv; /* keys [n_lo, n_hi) */
    if (p.causal) n_hi = min(n_hi, pos_hi + 1);
    if (p.window > 0) {
        n_lo = max(n_lo, pos_lo - p.window);
        n_hi = min(n_hi, pos_hi + p.window + 1);
    }
    const int tb = n_lo / BLOCK_N;
    const int te = (n_hi > n_lo) ? (n_hi + BLOCK_N - 1) / BLOCK_N : tb;
    const int ntiles = te - tb;

    /* this warp's rows, for the per-warp "needs per-element masking" decision */
    const int wrow0 = warp * kWarpRows;
    const int w_pos_lo = p.kv_offset + m0 + wrow0;
    const int w_pos_hi = p.kv_offset + min(m0 + wrow0 + kWarpRows, Nq) - 1;
    const bool has_alibi = p.max_bias > 0.f;
    const bool always_generic = p.has_mask || has_alibi;
    float slope2 = 0.f; /* ALiBi slope * log2(e) */
    if (has_alibi)
        slope2 = kLog2e * (h < p.n_head_log2 ? __powf(p.m0, (float)(h + 1))
                                             : __powf(p.m1, (float)(2 * (h - p.n_head_log2) + 1)));
    const float sl2 = p.scale * kLog2e;

    /* ---- per-thread copy assignments (16-byte chunks, coalesced along rows) ---- */
    constexpr int kQPerThr = BLOCK_M * kQChunks / kThreads;
    constexpr int kKPerThr = BLOCK_N * kQChunks / kThreads;
    constexpr int kVPerThr = BLOCK_N * kVChunks / kThreads;

    /* thread -> (row, chunk) of its first chunk; later chunks are kThreads / chunks-per-row rows
     * further down, same chunk column, so one base pointer serves every chunk.  Rows past the
     * end are zero-filled (src-size 0: nothing is read from the pointer). */
    static_assert(kThreads % kQChunks == 0 && kThreads % kVChunks == 0, "whole rows per thread sweep");
    constexpr int kQKStep = kThreads / kQChunks; /* rows between a thread's Q / K chunks */
    constexpr int kVStep = kThreads / kVChunks;  /* rows between a thread's V chunks */
    const int qk_row = tid / kQChunks, qk_ch = tid % kQChunks;
    const int v_row = tid / kVChunks, v_ch = tid % kVChunks;
    /* padded D: a thread's chunk column is fixed, so it copies real data (chunk < kDChunks),
     * zero-fills a padded column the products read, or skips columns nothing reads */
    const bool qk_real = kDChunks == kQChunks || qk_ch < kDChunks;
    const bool qk_copy = kDKChunks == kQChunks || qk_ch < kDKChunks;
    const bool v_real = kDVChunks == kVChunks || v_ch < kDVChunks;
    const bool v_copy = kDVKChunks == kVChunks || v_ch < kDVKChunks;
    const int qk_src_ch = qk_real ? qk_ch : 0, v_src_ch = v_real ? v_ch : 0;
    const elem_t* __restrict__ qg_thr = qg + qk_row * HEAD_DIM + qk_src_ch * 8;
    const elem_t* __restrict__ kg_thr = kg + qk_row * HEAD_DIM + qk_src_ch * 8;
    const elem_t* __restrict__ vg_thr = vg + v_row * HEAD_DIM + v_src_ch * 8;

    auto load_q = [&]() {
#pragma unroll
        for (int i = 0; i < kQPerThr; ++i) {
            const int r = qk_row + i * kQKStep;
            if (qk_copy)
                cp_async16_zfill(sQa + tile_off<kQChunks>(r, qk_ch), qg_thr + (long long)(m0 + i * kQKStep) * HEAD_DIM,
                                 qk_real && m0 + r < Nq ? 16 : 0);
        }
    };
    auto load_k = [&](int stage, int tile) {
        const int n0 = tile * BLOCK_N;
        const unsigned dst = sKa + stage * (2 * kKElems);
        const elem_t* src = kg_thr + (long long)n0 * HEAD_DIM;
#pragma unroll
        for (int i = 0; i < kKPerThr; ++i) {
            const int r = qk_row + i * kQKStep;
            if (qk_copy)
                cp_async16_zfill(dst + tile_off<kQChunks>(r, qk_ch), src + i * kQKStep * HEAD_DIM,
                                 qk_real && n0 + r < Nkv ? 16 : 0);
        }
    };
    auto load_v = [&](int stage, int tile, int col0) {
        const int n0 = tile * BLOCK_N;
        const unsigned dst = sVa + stage * (2 * kVElems);
        const elem_t* src = vg_thr + (long long)n0 * HEAD_DIM + col0;
#pragma unroll
        for (int i = 0; i < kVPerThr; ++i) {
            const int r = v_row + i * kVStep;
            if (v_copy)
                cp_async16_zfill(dst + tile_off<kVChunks>(r, v_ch), src + i * kVStep * HEAD_DIM,
                                 v_real && n0 + r < Nkv ? 16 : 0);
        }
    };

    /* ---- per-lane ldmatrix row / chunk selectors ---- */
    /* A (Q): matrices (rows 0-7,k lo) (rows 8-15,k lo) (rows 0-7,k hi) (rows 8-15,k hi) */
    const int a_row = lane & 15, a_hi = lane >> 4;
    /* B (K, non-trans): (n 0-7,k lo) (n 0-7,k hi) (n 8-15,k lo) (n 8-15,k hi) */
    const int kb_row = (lane & 7) + ((lane >> 4) << 3), kb_hi = (lane >> 3) & 1;
    /* B (V, trans): (kv 0-7,d lo) (kv 8-15,d lo) (kv 0-7,d hi) (kv 8-15,d hi) */
    const int vb_row = (lane & 7) + (((lane >> 3) & 1) << 3), vb_hi = lane >> 4;

    LdsmLane<kQChunks> lq, lk;
    LdsmLane<kVChunks> lv;
    lq.init(wrow0 + a_row, a_hi);
    lk.init(kb_row, kb_hi);
    lv.init(vb_row, vb_hi);

    /* accumulator row owned by this lane (plus 8) inside an mma tile, and column pair */
    const int lr = lane >> 2, lc = (lane & 3) * 2;

    load_q();
    cp_async_commit();

#pragma unroll 1
    for (int pass = 0; pass < kPasses; ++pass) {
        const int col0 = pass * DV_TILE;

        /* prologue: tiles tb .. tb+STAGES-2, one commit group for K and one for V each */
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ntiles) load_k(s, tb + s);
            cp_async_commit();
            if (s < ntiles) load_v(s, tb + s, col0);
            cp_async_commit();
        }

        unsigned qf[Q_IN_REGS ? kMT : 1][Q_IN_REGS ? kKS : 1][4];
        if (Q_IN_REGS) {
            cp_async_wait<2 * (STAGES - 1)>(); /* Q landed */
            __syncthreads();
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                for (int ks = 0; ks < kKS; ++ks)
                    ldsm_x4(sQa + lq.at(mt, ks), qf[Q_IN_REGS ? mt : 0][Q_IN_REGS ? ks : 0]);
        }

        float acc[kMT][kDT][4];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
            for (int dt = 0; dt < kDT; ++dt)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[mt][dt][e] = 0.f;
        float row_m[kMT][2], row_l[kMT][2]; /* running max (log2 domain) and this lane's partial sum */
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                row_m[mt][hh] = kNegInf;
                row_l[mt][hh] = 0.f;
            }

        int rd = 0, wr = STAGES - 1;
#pragma unroll 1
        for (int it = 0; it < ntiles; ++it) {
            const int tile = tb + it;
            const int n0 = tile * BLOCK_N;

            cp_async_wait<2 * STAGES - 3>(); /* K of this tile (and Q) landed */
            __syncthreads();                 /* ... for every thread; buffer `wr` is free */
            if (it + STAGES - 1 < ntiles) load_k(wr, tile + STAGES - 1);
            cp_async_commit();
            if (it + STAGES - 1 < ntiles) load_v(wr, tile + STAGES - 1, col0);
            cp_async_commit();
            wr = (wr + 1 == STAGES) ? 0 : wr + 1;

            /* ---- S = Q K^T ---- */
            float s[kMT][kNT][4];
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.f;

            const unsigned kst = sKa + rd * (2 * kKElems);
#pragma unroll
            for (int ks = 0; ks < kKS; ++ks) {
                unsigned qa[kMT][4];
#pragma unroll
                for (int mt = 0; mt < kMT; ++mt) {
                    if (Q_IN_REGS) {
#pragma unroll
                        for (int e = 0; e < 4; ++e) qa[mt][e] = qf[Q_IN_REGS ? mt : 0][Q_IN_REGS ? ks : 0][e];
                    } else {
                        ldsm_x4(sQa + lq.at(mt, ks), qa[mt]);
                    }
                }
#pragma unroll
                for (int np = 0; np < kNT / 2; ++np) {
                    unsigned b[4];
                    ldsm_x4(kst + lk.at(np, ks), b);
#pragma unroll
                    for (int mt = 0; mt < kMT; ++mt) {
                        mma16816<elem_t>(s[mt][2 * np], qa[mt], b[0], b[1]);
                        mma16816<elem_t>(s[mt][2 * np + 1], qa[mt], b[2], b[3]);
                    }
                }
            }

            /* ---- masking (diagonal / boundary tiles, mask, ALiBi) ---- */
            float mul = sl2; /* s * mul is the log2-domain logit */
            const bool generic = always_generic || (n0 + BLOCK_N > Nkv) ||
                                 (p.causal && n0 + BLOCK_N - 1 > w_pos_lo) ||
                                 (p.window > 0 && (n0 < w_pos_hi - p.window || n0 + BLOCK_N - 1 > w_pos_lo + p.window));
            if (generic) {
                mul = 1.f;
                const int row_base = m0 + wrow0 + opaque_zero(); /* recomputed per tile: keeps registers free */
                if (!always_generic) {
                    /* causal / window / Nkv boundary only: branch-free select */
#pragma unroll
                    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                        for (int hh = 0; hh < 2; ++hh) {
                            const int pos = p.kv_offset + row_base + mt * 16 + hh * 8 + lr;
                            /* key j is kept iff j_lo <= j < j_hi: score_mods::kept_keys written out, because
                             * calling it changed ptxas' registers on 108 of this kernel's 226 configurations */
                            int j_hi = Nkv, j_lo = 0;
                            if (p.causal) j_hi = min(j_hi, pos + 1);
                            if (p.window > 0) {
                                j_hi = min(j_hi, pos + p.window + 1);
                                j_lo = pos - p.window;
                            }
                            j_hi -= n0 + lc;
                            j_lo -= n0 + lc;
#pragma unroll
                            for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                                for (int e = 0; e < 2; ++e) {
                                    const int jj = nt * 8 + e; /* j - n0 - lc */
                                    const float x = s[mt][nt][hh * 2 + e] * sl2;
                                    s[mt][nt][hh * 2 + e] = (jj < j_hi && jj >= j_lo) ? x : kNegInf;
                                }
                        }
                } else {
                    /* additive mask and / or ALiBi on every tile */
                    const __half* __restrict__ mask_b = mask + (long long)(b + opaque_zero()) * Nq * Nkv;
#pragma unroll
                    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                        for (int hh = 0; hh < 2; ++hh) {
                            const int i = row_base + mt * 16 + hh * 8 + lr;
                            const int pos = p.kv_offset + i;
                            int j_hi = Nkv, j_lo = 0;
                            if (p.causal) j_hi = min(j_hi, pos + 1);
                            if (p.window > 0) {
                                j_hi = min(j_hi, pos + p.window + 1);
                                j_lo = pos - p.window;
                            }
                            const bool mrow_ok = p.has_mask && i < Nq;
                            const __half* __restrict__ mrow = mask_b + (long long)(i < Nq ? i : 0) * Nkv;
#pragma unroll
                            for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                                for (int e = 0; e < 2; ++e) {
                                    const int j = n0 + nt * 8 + lc + e;
                                    float x = s[mt][nt][hh * 2 + e] * sl2 - slope2 * (float)abs(pos - j);
                                    float mv = 0.f;
                                    if (mrow_ok && j < Nkv) mv = __half2float(mrow[j]);
                                    x = fmaf(mv, kLog2e, x);
                                    s[mt][nt][hh * 2 + e] = (j < j_hi && j >= j_lo) ? x : kNegInf;
                                }
                        }
                }
            }

            /* ---- online softmax; P packed to 16-bit pairs right away (half the registers) ---- */
            unsigned pk[kMT][kNT][2]; /* [mt][nt][hh]: the A-fragment words of P */
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) {
                float m_use[2];
#pragma unroll
                for (int hh = 0; hh < 2; ++hh) {
                    float mx = s[mt][0][hh * 2];
#pragma unroll
                    for (int nt = 0; nt < kNT; ++nt) {
                        mx = fmaxf(mx, s[mt][nt][hh * 2]);
                        mx = fmaxf(mx, s[mt][nt][hh * 2 + 1]);
                    }
                    float alpha;
                    m_use[hh] = online_softmax::advance_max(row_m[mt][hh], online_softmax::quad_max(mx) * mul, alpha);
                    row_l[mt][hh] *= alpha;
#pragma unroll
                    for (int dt = 0; dt < kDT; ++dt) online_softmax::rescale_row(acc[mt][dt], hh, alpha);
                }
#pragma unroll
                for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                    for (int hh = 0; hh < 2; ++hh) {
                        const float p0 = ex2(fmaf(s[mt][nt][hh * 2], mul, -m_use[hh]));
                        const float p1 = ex2(fmaf(s[mt][nt][hh * 2 + 1], mul, -m_use[hh]));
                        row_l[mt][hh] += p0 + p1;
                        pk[mt][nt][hh] = pack2<elem_t>(p0, p1);
                    }
            }

            cp_async_wait<2 * STAGES - 2>(); /* V of this tile landed */
            __syncthreads();

            /* ---- O += P V (P from registers) ---- */
            const unsigned vst = sVa + rd * (2 * kVElems);
#pragma unroll
            for (int kk = 0; kk < kPKS; ++kk) {
                unsigned pa[kMT][4];
#pragma unroll
                for (int mt = 0; mt < kMT; ++mt) {
                    pa[mt][0] = pk[mt][2 * kk][0];
                    pa[mt][1] = pk[mt][2 * kk][1];
                    pa[mt][2] = pk[mt][2 * kk + 1][0];
                    pa[mt][3] = pk[mt][2 * kk + 1][1];
                }
#pragma unroll
                for (int dp = 0; dp < kDT / 2; ++dp) {
                    unsigned b[4];
                    ldsm_x4_t(vst + lv.at(kk, dp), b);
#pragma unroll
                    for (int mt = 0; mt < kMT; ++mt) {
                        mma16816<elem_t>(acc[mt][2 * dp], pa[mt], b[0], b[1]);
                        mma16816<elem_t>(acc[mt][2 * dp + 1], pa[mt], b[2], b[3]);
                    }
                }
            }
            rd = (rd + 1 == STAGES) ? 0 : rd + 1;
        }

        /* ---- epilogue: full row sums, sinks, normalize, store ---- */
        const float sink2 = p.has_sinks ? sinks[h] * kLog2e : kNegInf;
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const float inv = online_softmax::row_normalizer(online_softmax::quad_sum(row_l[mt][hh]),
                                                                 row_m[mt][hh], sink2, p.has_sinks);
#pragma unroll
                for (int dt = 0; dt < kDT; ++dt) {
                    acc[mt][dt][hh * 2] *= inv;
                    acc[mt][dt][hh * 2 + 1] *= inv;
                }
            }

        if (kPasses == 1) {
            /* every cp.async of the block has landed (Q too, when no tile ran) */
            cp_async_wait<0>();
            __syncthreads();
            /* stage the warp's rows in its own rows of the Q tile (only this warp ever
             * read them), then 16-byte coalesced stores */
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                for (int dt = 0; dt < kDT; ++dt)
#pragma unroll
                    for (int hh = 0; hh < 2; ++hh) {
                        const int r = wrow0 + mt * 16 + hh * 8 + lr;
                        const unsigned off = tile_off<kQChunks>(r, dt) + lc * 2;
                        *reinterpret_cast<unsigned*>(sQ + off) = pack2<elem_t>(acc[mt][dt][hh * 2], acc[mt][dt][hh * 2 + 1]);
                    }
            __syncwarp();
            constexpr int kOPerLane = kWarpRows * kQChunks / 32;
#pragma unroll
            for (int i = 0; i < kOPerLane; ++i) {
                const int c = lane + i * 32;
                const int r = wrow0 + c / kQChunks, ch = c % kQChunks;
                const int gr = m0 + r;
                const uint4 val = *reinterpret_cast<const uint4*>(sQ + tile_off<kQChunks>(r, ch));
                /* padded columns (ch >= kDChunks) stay in shared memory */
                if (gr < Nq && (kDChunks == kQChunks || ch < kDChunks))
                    *reinterpret_cast<uint4*>(og + (long long)gr * HEAD_DIM + ch * 8) = val;
            }
        } else {
            /* DV tiling: Q stays in shared memory for the next pass; store straight from registers */
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
                for (int hh = 0; hh < 2; ++hh) {
                    const int gr = m0 + wrow0 + mt * 16 + hh * 8 + lr;
                    if (gr < Nq) {
#pragma unroll
                        for (int dt = 0; dt < kDT; ++dt)
                            *reinterpret_cast<unsigned*>(og + (long long)gr * HEAD_DIM + col0 + dt * 8 + lc) =
                                pack2<elem_t>(acc[mt][dt][hh * 2], acc[mt][dt][hh * 2 + 1]);
                    }
                }
            /* every warp done with this pass's K / V buffers before the next prologue */
            cp_async_wait<0>();
            __syncthreads();
        }
    }
}

/* similarity: multi-head attention similarity for attn-tune, fp32.
 *
 *   out[i][j] = scale * sum_{f < proj_dim} (q_i . wq[f]) * (k_j . wk[f])
 *
 * (contract: common/similarity_params.h). HEAD_STRATEGY selects how the heads
 * are computed; each strategy compiles only its own entry points:
 *
 *   0 sequential    one thread per (query, key) pair, heads in a loop, both
 *                   projections recomputed inside it: the per-pair design's kernel.
 *                   Launch: grid [ceil_div(M, BX), ceil_div(N, BY)], block [BX, BY].
 *   1 fused         one block per TILE x TILE pairs projects its queries and keys
 *                   through the concatenated weights, FC features at a time, into
 *                   shared memory and accumulates their products: one launch.
 *                   Launch: grid [ceil_div(M, TILE), ceil_div(N, TILE)], block [256].
 *   2 head grid     the same tile code, one head per block (grid z), per-head
 *                   partials in ws [heads][N][M]; a second launch sums the heads.
 *                   Launches: similarity_head_partials grid [.., .., heads], block [256];
 *                   similarity_head_reduce grid [ceil_div(N * M, 256)], block [256].
 *   3 warp          one warp per (query, KPW keys): lanes split the features of all
 *                   heads, the query's projection is shared by the KPW keys, and a
 *                   shuffle reduction combines the lanes.
 *                   Launch: grid [ceil_div(M, KPW * WARPS), N], block [32 * WARPS].
 *   4 projected     the projections done once as GEMMs into ws (queries at ws,
 *                   keys after them), then one GEMM of the projected queries and
 *                   keys. With keys_ahead the keys come projected (input pk) and
 *                   the first launch projects the queries only.
 *                   Launches: similarity_project grid [ceil_div(proj_dim, BN),
 *                   ceil_div(max(N, M), BM), 2 - keys_ahead], block [(BM/TM)*(BN/TN)];
 *                   similarity_product grid [ceil_div(M, BN), ceil_div(N, BM)], same block.
 *
 * Strategies 0, 1 and 3 compute the projections once per pair or per tile;
 * only 4 does the mathematics once (see docs/kernels/similarity_deformable.md).
 * Every GEMM here is plain fp32 FFMA (no TF32), register-blocked:
 * C[i][j] = alpha * sum_k A[i][k] B[j][k], both operands K-contiguous, staged
 * transposed in shared memory, TM x TN outputs per thread.
 * NVRTC-clean: no includes but the contract.
 */
#include "common/similarity_params.h"
#include "cuda/ptx/math.cuh"

/* ------------------------------------------------------------------ tunables */
#ifndef HEAD_STRATEGY
#define HEAD_STRATEGY 4
#endif
/* 0: threads per block along keys (x) and queries (y) */
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
/* 1, 2: pairs per block side, features projected per step, input columns staged per step */
#ifndef TILE
#define TILE 64
#endif
#ifndef FC
#define FC 32
#endif
/* 3: keys per warp, warps per block */
#ifndef KPW
#define KPW 8
#endif
#ifndef WARPS
#define WARPS 4
#endif
/* 4: block tile BM x BN, K step BK, thread tile TM x TN */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
/* second argument of __launch_bounds__ for the GEMM kernels */
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

/* ------------------------------------------------------- configuration checks */
#if HEAD_STRATEGY < 0 || HEAD_STRATEGY > 4
#error "similarity: HEAD_STRATEGY must be 0 (sequential), 1 (fused), 2 (head grid), 3 (warp) or 4 (projected)"
#endif
#if BX * BY < 32 || BX * BY > 1024
#error "similarity: BX * BY must be 32 to 1024 threads"
#endif
#if TILE != 64 && TILE != 128
#error "similarity: TILE must be 64 or 128"
#endif
#if FC != 16 && FC != 32 && FC != 64
#error "similarity: FC must be 16, 32 or 64"
#endif
#if (TILE * FC) != 2048 && (TILE * FC) != 4096
#error "similarity: TILE * FC must be 2048 or 4096 (4 or 8 projected rows per thread)"
#endif
#if KPW < 1 || KPW > 32 || WARPS < 1 || WARPS > 32
#error "similarity: KPW and WARPS must be 1 to 32"
#endif
#if BK != 8 && BK != 16
#error "similarity: BK must be 8 or 16"
#endif
#if (TM != 4 && TM != 8) || (TN != 4 && TN != 8)
#error "similarity: TM and TN must be 4 or 8"
#endif
#if (BM % TM) != 0 || (BN % TN) != 0 || (BM / TM) * (BN / TN) < 64 || (BM / TM) * (BN / TN) > 1024
#error "similarity: BM/TM * BN/TN must be 64 to 1024 threads"
#endif

namespace sim {

using namespace ptx;

constexpr int kPad = 4;  /* floats after each staged row: 16-byte aligned rows, conflict-free transposed stores */

__device__ __forceinline__ float4 ldg4(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }

/* x . w over n floats (n % 4 == 0), both rows 16-byte aligned */
__device__ __forceinline__ float dot_row(const float* x, const float* w, int n) {
    float acc = 0.f;
    for (int d = 0; d < n; d += 4) acc = dot4(ldg4(x + d), ldg4(w + d), acc);
    return acc;
}

/* ROWS x BKS rows of a K-contiguous matrix (rows `rows`, row stride ld, K
 * columns) staged in registers and stored transposed, [BKS][ROWS + kPad], in
 * shared memory. Rows past `rows` and columns past K read as zero. */
template <int ROWS, int BKS, int THREADS>
struct StagedTile {
    static constexpr int kVecs = ROWS * BKS / 4;
    static constexpr int kPerThread = (kVecs + THREADS - 1) / THREADS;
    static constexpr int kLd = ROWS + kPad;
    float4 v[kPerThread];

    __device__ __forceinline__ void load(const float* src, int ld, int row0, int rows, int k0, int K, int t) {
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
            const int idx = t + i * THREADS;
            const int row = idx / (BKS / 4), k = k0 + 4 * (idx % (BKS / 4));
            const bool in = (kVecs % THREADS == 0 || idx < kVecs) && row0 + row < rows && k < K;
            v[i] = in ? ldg4(src + (size_t)(row0 + row) * ld + k) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
    __device__ __forceinline__ void store(float* s, int t) const {
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
            const int idx = t + i * THREADS;
            if (kVecs % THREADS != 0 && idx >= kVecs) break;
            const int row = idx / (BKS / 4), k = 4 * (idx % (BKS / 4));
            s[(k + 0) * kLd + row] = v[i].x;
            s[(k + 1) * kLd + row] = v[i].y;
            s[(k + 2) * kLd + row] = v[i].z;
            s[(k + 3) * kLd + row] = v[i].w;
        }
    }
};

/* A thread's TR x TC outputs of a ROWS x COLS block: rows g*(4*ROWS/TR) + 4*tr + e
 * (TR/4 groups of four), likewise columns, so that a warp's float4 reads of a
 * staged row hit distinct banks or broadcast. */
template <int ROWS, int COLS, int TR, int TC>
struct ThreadTile {
    static constexpr int kThreads = (ROWS / TR) * (COLS / TC);
    static constexpr int kRowStep = 4 * ROWS / TR;
    static constexpr int kColStep = 4 * COLS / TC;
    int tr, tc;
    __device__ __forceinline__ explicit ThreadTile(int t) : tr(t / (COLS / TC)), tc(t % (COLS / TC)) {}
    __device__ __forceinline__ int row(int i) const { return (i / 4) * kRowStep + 4 * tr + (i % 4); }
    __device__ __forceinline__ int col(int j) const { return (j / 4) * kColStep + 4 * tc + (j % 4); }

    /* acc[i][j] += sum_{k < KS} As[k][row(i)] * Bs[k][col(j)]; As rows lda apart, Bs ldb */
    template <int KS>
    __device__ __forceinline__ void accumulate(const float* As, int lda, const float* Bs, int ldb,
                                               float (&acc)[TR][TC]) const {
#pragma unroll
        for (int k = 0; k < KS; ++k) {
            float a[TR], b[TC];
#pragma unroll
            for (int g = 0; g < TR / 4; ++g)
                *reinterpret_cast<float4*>(&a[4 * g]) =
                    *reinterpret_cast<const float4*>(As + k * lda + g * kRowStep + 4 * tr);
#pragma unroll
            for (int g = 0; g < TC / 4; ++g)
                *reinterpret_cast<float4*>(&b[4 * g]) =
                    *reinterpret_cast<const float4*>(Bs + k * ldb + g * kColStep + 4 * tc);
#pragma unroll
            for (int i = 0; i < TR; ++i)
#pragma unroll
                for (int j = 0; j < TC; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }

    /* C[row0 + row(i)][col0 + col(j)] = alpha * acc, rows < rows, columns < cols;
     * 16-byte stores where four columns are in range and ldc keeps them aligned */
    __device__ __forceinline__ void store(float* C, long long ldc, int row0, int rows, int col0, int cols,
                                          float alpha, const float (&acc)[TR][TC]) const {
        const bool vec = (ldc & 3) == 0;
#pragma unroll
        for (int i = 0; i < TR; ++i) {
            const int r = row0 + row(i);
            if (r >= rows) continue;
            float* dst = C + r * ldc;
#pragma unroll
            for (int g = 0; g < TC / 4; ++g) {
                const int c = col0 + col(4 * g);
                if (vec && c + 3 < cols) {
                    *reinterpret_cast<float4*>(dst + c) = make_float4(alpha * acc[i][4 * g], alpha * acc[i][4 * g + 1],
                                                                      alpha * acc[i][4 * g + 2], alpha * acc[i][4 * g + 3]);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        if (c + e < cols) dst[c + e] = alpha * acc[i][4 * g + e];
                }
            }
        }
    }
};

}  // namespace sim

/* ========================================================= 0: sequential */
#if HEAD_STRATEGY == 0
extern "C" __global__ void __launch_bounds__(BX * BY)
similarity_sequential(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                      const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                      float* __restrict__ ws, similarity_params p) {
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= p.N || j >= p.M) return;
    const float* qi = q + (size_t)i * p.D;
    const float* kj = k + (size_t)j * p.D;
    float total = 0.f;
    for (int h = 0; h < p.heads; ++h) { /* the per-pair design's loop: one head after the other */
        float head = 0.f;
        for (int e = 0; e < p.head_dim; ++e) {
            const int f = h * p.head_dim + e;
            const float pq = sim::dot_row(qi, wq + (size_t)f * p.D, p.D);
            const float pkf = sim::dot_row(kj, wk + (size_t)f * p.D, p.D);
            head = fmaf(pq, pkf, head);
        }
        total += head;
    }
    out[(size_t)i * p.M + j] = total * p.scale;
}
#endif

/* ============================================== 1, 2: per-tile projections */
#if HEAD_STRATEGY == 1 || HEAD_STRATEGY == 2
namespace sim {

constexpr int kTileThreads = 256;
constexpr int kTileBK = 16;                 /* input columns staged per step */
constexpr int kTT = TILE / 16;              /* product: kTT x kTT pairs per thread */
constexpr int kPR = TILE * FC / 512;        /* projection: kPR rows x 4 features per thread */
constexpr int kTileLd = TILE + kPad;
constexpr int kFcLd = FC + kPad;

/* The staged inputs and the projections are never live at once: they share memory
 * (at most 35 KB, under the 48 KB of static shared memory). */
union TileSmem {
    struct {
        float x[kTileBK * kTileLd];   /* query rows, transposed */
        float y[kTileBK * kTileLd];   /* key rows, transposed */
        float wq[kTileBK * kFcLd];    /* FC query-projection rows, transposed */
        float wk[kTileBK * kFcLd];
    } in;
    struct {
        float pq[FC * kTileLd];       /* the tile's projected queries, feature-major */
        float pk[FC * kTileLd];
    } proj;
};

/* acc += the products of features [f_begin, f_end) for queries i0.. and keys j0..:
 * per FC features, threads 0-127 project the queries and 128-255 the keys
 * (streaming D in kTileBK steps), then all multiply the two projections. */
__device__ __forceinline__ void tile_products(const float* q, const float* k, const float* wq, const float* wk,
                                              const similarity_params& p, int i0, int j0, int f_begin, int f_end,
                                              TileSmem& s, float (&acc)[kTT][kTT]) {
    const int t = threadIdx.x;
    const bool keys = t >= kTileThreads / 2;
    const int th = t % (kTileThreads / 2);
    const ThreadTile<TILE, FC, kPR, 4> proj(th);
    const ThreadTile<TILE, TILE, kTT, kTT> prod(t);
    StagedTile<TILE, kTileBK, kTileThreads> xt, yt;
    StagedTile<FC, kTileBK, kTileThreads> wqt, wkt;
    for (int f0 = f_begin; f0 < f_end; f0 += FC) {
        float pacc[kPR][4];
#pragma unroll
        for (int r = 0; r < kPR; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) pacc[r][c] = 0.f;
        for (int d0 = 0; d0 < p.D; d0 += kTileBK) {
            xt.load(q, p.D, i0, p.N, d0, p.D, t);
            yt.load(k, p.D, j0, p.M, d0, p.D, t);
            wqt.load(wq + (size_t)f0 * p.D, p.D, 0, FC, d0, p.D, t);
            wkt.load(wk + (size_t)f0 * p.D, p.D, 0, FC, d0, p.D, t);
            xt.store(s.in.x, t);
            yt.store(s.in.y, t);
            wqt.store(s.in.wq, t);
            wkt.store(s.in.wk, t);
            __syncthreads();
            if (keys) proj.accumulate<kTileBK>(s.in.y, kTileLd, s.in.wk, kFcLd, pacc);
            else proj.accumulate<kTileBK>(s.in.x, kTileLd, s.in.wq, kFcLd, pacc);
            __syncthreads();
        }
        float* dst = keys ? s.proj.pk : s.proj.pq;
#pragma unroll
        for (int r = 0; r < kPR; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) dst[proj.col(c) * kTileLd + proj.row(r)] = pacc[r][c];
        __syncthreads();
        prod.accumulate<FC>(s.proj.pq, kTileLd, s.proj.pk, kTileLd, acc);
        __syncthreads(); /* the next chunk's staged inputs overwrite the projections */
    }
}

}  // namespace sim
#endif

#if HEAD_STRATEGY == 1
extern "C" __global__ void __launch_bounds__(sim::kTileThreads)
similarity_fused(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                 const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                 float* __restrict__ ws, similarity_params p) {
    __shared__ __align__(16) sim::TileSmem s;
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    float acc[sim::kTT][sim::kTT] = {};
    sim::tile_products(q, k, wq, wk, p, i0, j0, 0, p.proj_dim, s, acc);
    const sim::ThreadTile<TILE, TILE, sim::kTT, sim::kTT> prod(threadIdx.x);
    prod.store(out, p.M, i0, p.N, j0, p.M, p.scale, acc);
}
#endif

#if HEAD_STRATEGY == 2
extern "C" __global__ void __launch_bounds__(sim::kTileThreads)
similarity_head_partials(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                         const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                         float* __restrict__ ws, similarity_params p) {
    __shared__ __align__(16) sim::TileSmem s;
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE, h = blockIdx.z;
    float acc[sim::kTT][sim::kTT] = {};
    sim::tile_products(q, k, wq, wk, p, i0, j0, h * p.head_dim, (h + 1) * p.head_dim, s, acc);
    const sim::ThreadTile<TILE, TILE, sim::kTT, sim::kTT> prod(threadIdx.x);
    prod.store(ws + (size_t)h * p.N * p.M, p.M, i0, p.N, j0, p.M, 1.f, acc);
}

extern "C" __global__ void __launch_bounds__(256)
similarity_head_reduce(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                       const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                       float* __restrict__ ws, similarity_params p) {
    const size_t pairs = (size_t)p.N * p.M;
    const size_t e = (size_t)blockIdx.x * 256 + threadIdx.x;
    if (e >= pairs) return;
    float sum = 0.f;
    for (int h = 0; h < p.heads; ++h) sum += ws[h * pairs + e];
    out[e] = sum * p.scale;
}
#endif

/* ============================================================ 3: warp */
#if HEAD_STRATEGY == 3
extern "C" __global__ void __launch_bounds__(32 * WARPS)
similarity_warp(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                float* __restrict__ ws, similarity_params p) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int i = blockIdx.y;
    const int j0 = (blockIdx.x * WARPS + warp) * KPW;
    if (j0 >= p.M) return;
    const float* qi = q + (size_t)i * p.D;
    const float* kj[KPW];
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk) kj[kk] = k + (size_t)min(j0 + kk, p.M - 1) * p.D; /* tail keys: computed, not stored */
    float acc[KPW];
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk) acc[kk] = 0.f;
    /* lane owns features lane, lane + 32, ... of all heads; the query's
     * projection of a feature serves the warp's KPW keys */
    for (int f = lane; f < p.proj_dim; f += 32) {
        const float* wqf = wq + (size_t)f * p.D;
        const float* wkf = wk + (size_t)f * p.D;
        float pq = 0.f, pkf[KPW];
#pragma unroll
        for (int kk = 0; kk < KPW; ++kk) pkf[kk] = 0.f;
        for (int d = 0; d < p.D; d += 4) {
            pq = sim::dot4(sim::ldg4(qi + d), sim::ldg4(wqf + d), pq);
            const float4 w = sim::ldg4(wkf + d);
#pragma unroll
            for (int kk = 0; kk < KPW; ++kk) pkf[kk] = sim::dot4(sim::ldg4(kj[kk] + d), w, pkf[kk]);
        }
#pragma unroll
        for (int kk = 0; kk < KPW; ++kk) acc[kk] = fmaf(pq, pkf[kk], acc[kk]);
    }
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk)
#pragma unroll
        for (int o = 16; o > 0; o /= 2) acc[kk] += __shfl_xor_sync(0xffffffffu, acc[kk], o);
    if (lane < KPW && j0 + lane < p.M) {
        float mine = acc[0];
#pragma unroll
        for (int kk = 1; kk < KPW; ++kk)
            if (lane == kk) mine = acc[kk];
        out[(size_t)i * p.M + j0 + lane] = mine * p.scale;
    }
}
#endif

/* ======================================================= 4: projected */
#if HEAD_STRATEGY == 4
namespace sim {

constexpr int kGemmThreads = (BM / TM) * (BN / TN);

struct GemmSmem {
    float a[2][BK * (BM + kPad)];
    float b[2][BK * (BN + kPad)];
};

/* One BM x BN block of C = alpha * A . B^T (A [rows][K], B [cols][K], both
 * K-contiguous): register-staged double buffering, one barrier per K step. */
__device__ __forceinline__ void gemm_nt_block(const float* A, int lda, int rows, const float* B, int ldb, int cols,
                                              int K, float* C, long long ldc, float alpha, int row0, int col0,
                                              GemmSmem& s) {
    const int t = threadIdx.x;
    const ThreadTile<BM, BN, TM, TN> tile(t);
    StagedTile<BM, BK, kGemmThreads> at;
    StagedTile<BN, BK, kGemmThreads> bt;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    at.load(A, lda, row0, rows, 0, K, t);
    bt.load(B, ldb, col0, cols, 0, K, t);
    at.store(s.a[0], t);
    bt.store(s.b[0], t);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) { /* the next step's loads are in flight during this step's FFMAs */
            at.load(A, lda, row0, rows, k0 + BK, K, t);
            bt.load(B, ldb, col0, cols, k0 + BK, K, t);
        }
        tile.accumulate<BK>(s.a[buf], BM + kPad, s.b[buf], BN + kPad, acc);
        if (more) {
            at.store(s.a[buf ^ 1], t);
            bt.store(s.b[buf ^ 1], t);
        }
        __syncthreads();
        buf ^= 1;
    }
    tile.store(C, ldc, row0, rows, col0, cols, alpha, acc);
}

}  // namespace sim

/* z = 0: ws[0 .. N*proj_dim) = q . wq^T; z = 1 (unless keys_ahead): the keys after them */
extern "C" __global__ void __launch_bounds__(sim::kGemmThreads, MIN_BLOCKS)
similarity_project(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                   const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                   float* __restrict__ ws, similarity_params p) {
    __shared__ __align__(16) sim::GemmSmem s;
    const bool keys = blockIdx.z == 1;
    const int rows = keys ? p.M : p.N;
    const int row0 = blockIdx.y * BM;
    if (row0 >= rows) return;
    float* dst = ws + (keys ? (size_t)p.N * p.proj_dim : 0);
    sim::gemm_nt_block(keys ? k : q, p.D, rows, keys ? wk : wq, p.D, p.proj_dim, p.D, dst, p.proj_dim, 1.f, row0,
                       blockIdx.x * BN, s);
}

/* out = scale * (projected queries) . (projected keys)^T */
extern "C" __global__ void __launch_bounds__(sim::kGemmThreads, MIN_BLOCKS)
similarity_product(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ wq,
                   const float* __restrict__ wk, const float* __restrict__ pk, float* __restrict__ out,
                   float* __restrict__ ws, similarity_params p) {
    __shared__ __align__(16) sim::GemmSmem s;
    const float* keys = p.keys_ahead ? pk : ws + (size_t)p.N * p.proj_dim;
    sim::gemm_nt_block(ws, p.proj_dim, p.N, keys, p.proj_dim, p.M, p.proj_dim, out, p.M, p.scale,
                       blockIdx.y * BM, blockIdx.x * BN, s);
}
#endif

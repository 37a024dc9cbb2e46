/* multihead_attention: multi-head attention over an [N][d_model]
 * layout, fp32 on the CUDA cores, flash-style (one pass over the keys with an
 * online softmax, no N x N score matrix). Contract: common/multihead_params.h.
 * A run-time window (|i - j| <= window) narrows the key range of each block and
 * masks the keys outside it, so the kernel also serves sliding-window shapes.
 *
 * Work split: one block per (BLOCK_M rows, head); threads = BLOCK_M /
 * ROWS_PER_THREAD * THREADS_PER_ROW. The THREADS_PER_ROW threads of a row are
 * consecutive lanes of one warp: for the scores each takes every
 * THREADS_PER_ROW-th key of the tile, for the output every THREADS_PER_ROW-th
 * group of 4 columns; row maxima are combined with shuffles. Each thread owns
 * ROWS_PER_THREAD rows (strided by BLOCK_M / ROWS_PER_THREAD), so every K and V
 * value it reads from shared memory feeds ROWS_PER_THREAD multiply-adds.
 *
 * Per KV tile: K and V (BLOCK_N rows of the head's d_k columns) to shared
 * memory; S = Q K^T in registers (float4 reads of Q and K); online softmax in
 * the log2 domain; P through shared memory; O += P V in registers.
 *
 * Launch: grid [ceil_div(N, BLOCK_M), h], block [BLOCK_M / ROWS_PER_THREAD *
 * THREADS_PER_ROW], dynamic shared memory MHA_SMEM_BYTES (the spec's
 * shared_bytes is the same expression). No workspace. NVRTC-clean: no includes
 * beyond the contract header.
 */
#include "common/multihead_params.h"
#include "cuda/ptx/math.cuh"

#ifndef DK
#define DK 64 /* d_k = d_model / h */
#endif
#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 8
#endif
#ifndef ROWS_PER_THREAD
#define ROWS_PER_THREAD 4
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /* second argument of __launch_bounds__ */
#endif

#if THREADS_PER_ROW != 1 && THREADS_PER_ROW != 2 && THREADS_PER_ROW != 4 && THREADS_PER_ROW != 8 && \
    THREADS_PER_ROW != 16 && THREADS_PER_ROW != 32
#error "multihead_attention: THREADS_PER_ROW must be a power of two <= 32 (a row's lanes share a warp)"
#endif
#if BLOCK_M % ROWS_PER_THREAD != 0 || BLOCK_N % THREADS_PER_ROW != 0 || DK % THREADS_PER_ROW != 0
#error "multihead_attention: ROWS_PER_THREAD | BLOCK_M, THREADS_PER_ROW | BLOCK_N and THREADS_PER_ROW | DK"
#endif
#if BLOCK_N % 4 != 0
#error "multihead_attention: BLOCK_N must be a multiple of 4"
#endif

/* padded row strides (floats): 4-word pads keep float4 rows on distinct banks */
#define MHA_DKP (DK % 4 == 0 ? DK + 4 : DK + 1)
#define MHA_BNP (BLOCK_N + 4)
#define MHA_SMEM_BYTES (4 * ((BLOCK_M + BLOCK_N) * MHA_DKP + BLOCK_N * DK + BLOCK_M * MHA_BNP))

namespace mha {

using namespace ptx;

constexpr int kTPR = THREADS_PER_ROW;
constexpr int kRPT = ROWS_PER_THREAD;
constexpr int kRowGroups = BLOCK_M / kRPT;
constexpr int kThreads = kRowGroups * kTPR;
constexpr int kKeys = BLOCK_N / kTPR;            /* scores per row per thread */
constexpr bool kVec = DK % 4 == 0;               /* float4 Q, K, V rows */
constexpr bool kVecCols = DK % (4 * kTPR) == 0;  /* output columns in float4 groups */
constexpr int kCols = DK / kTPR;                 /* output columns per row per thread */
constexpr int kDKP = MHA_DKP, kBNP = MHA_BNP;
constexpr float kLog2e = 1.4426950408889634f;
/* lanes present in a warp (a block of fewer than 32 threads has a partial one) */
constexpr unsigned kWarpMask = kThreads >= 32 ? 0xffffffffu : (1u << kThreads) - 1u;
#define kNegInf (__int_as_float(0xff800000))

static_assert(kThreads <= 1024, "too many threads per block");
static_assert(kThreads % 32 == 0 || kThreads < 32, "whole warps, or a single partial one");

/* max and sum over the kTPR consecutive lanes of a row */
__device__ __forceinline__ float row_max(float x) { return lanes_max<kTPR>(x, kWarpMask); }
__device__ __forceinline__ float row_sum(float x) { return lanes_sum<kTPR>(x, kWarpMask); }

/* rows [row0, row0 + rows) of one head's columns into a padded shared tile; zeros past `valid` */
__device__ __forceinline__ void load_tile(float* dst, int dst_stride, const float* __restrict__ src, int row0,
                                          int rows, int valid, int stride, int tid) {
    if constexpr (kVec) {
        constexpr int kC4 = DK / 4;
        for (int e = tid; e < rows * kC4; e += kThreads) {
            const int r = e / kC4, c4 = e % kC4;
            float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
            if (row0 + r < valid) x = __ldg(reinterpret_cast<const float4*>(src + (long long)(row0 + r) * stride) + c4);
            *reinterpret_cast<float4*>(dst + r * dst_stride + 4 * c4) = x;
        }
    } else {
        for (int e = tid; e < rows * DK; e += kThreads) {
            const int r = e / DK, c = e % DK;
            dst[r * dst_stride + c] = row0 + r < valid ? __ldg(src + (long long)(row0 + r) * stride + c) : 0.f;
        }
    }
}

}  // namespace mha

extern "C" __global__ void __launch_bounds__(mha::kThreads, MIN_BLOCKS)
multihead_attention(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                    float* __restrict__ o, float* __restrict__ ws, multihead_params p) {
    using namespace mha;
    (void)ws;
    extern __shared__ __align__(16) float smem[];
    /* P first: its float4 rows stay aligned whatever d_k is (kBNP is a multiple of 4) */
    float* sP = smem;                     /* [BLOCK_M][kBNP] */
    float* sQ = sP + BLOCK_M * kBNP;      /* [BLOCK_M][kDKP] */
    float* sK = sQ + BLOCK_M * kDKP;      /* [BLOCK_N][kDKP] */
    float* sV = sK + BLOCK_N * kDKP;      /* [BLOCK_N][DK]   */

    const int tid = threadIdx.x;
    const int tn = tid % kTPR, tm = tid / kTPR;
    const int m0 = blockIdx.x * BLOCK_M;
    const int col0 = blockIdx.y * DK;
    const int N = p.N, stride = p.d_model, window = p.window;
    const float sl2 = p.scale * kLog2e;

    load_tile(sQ, kDKP, q + col0, m0, BLOCK_M, N, stride, tid);

    /* keys any row of the block attends to */
    const int m_last = min(m0 + BLOCK_M, N) - 1;
    const int n_lo = window > 0 ? max(0, m0 - window) : 0;
    const int n_hi = window > 0 ? min(N, m_last + window + 1) : N;

    float m_run[kRPT], l_part[kRPT], acc[kRPT][kCols];
#pragma unroll
    for (int a = 0; a < kRPT; ++a) {
        m_run[a] = kNegInf;
        l_part[a] = 0.f;
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[a][c] = 0.f;
    }

#pragma unroll 1
    for (int n0 = n_lo; n0 < n_hi; n0 += BLOCK_N) {
        __syncthreads(); /* the previous tile's readers are done */
        load_tile(sK, kDKP, k + col0, n0, BLOCK_N, n_hi, stride, tid);
        load_tile(sV, DK, v + col0, n0, BLOCK_N, n_hi, stride, tid);
        __syncthreads();

        /* ---- S = Q K^T for this thread's rows and keys ---- */
        float s[kRPT][kKeys];
#pragma unroll
        for (int a = 0; a < kRPT; ++a)
#pragma unroll
            for (int b = 0; b < kKeys; ++b) s[a][b] = 0.f;
        if constexpr (kVec) {
#pragma unroll 4
            for (int c4 = 0; c4 < DK / 4; ++c4) {
                float4 qv[kRPT];
#pragma unroll
                for (int a = 0; a < kRPT; ++a)
                    qv[a] = *reinterpret_cast<const float4*>(sQ + (tm + kRowGroups * a) * kDKP + 4 * c4);
#pragma unroll
                for (int b = 0; b < kKeys; ++b) {
                    const float4 kv = *reinterpret_cast<const float4*>(sK + (tn + kTPR * b) * kDKP + 4 * c4);
#pragma unroll
                    for (int a = 0; a < kRPT; ++a) s[a][b] = dot4(qv[a], kv, s[a][b]);
                }
            }
        } else {
#pragma unroll 4
            for (int c = 0; c < DK; ++c) {
                float qv[kRPT];
#pragma unroll
                for (int a = 0; a < kRPT; ++a) qv[a] = sQ[(tm + kRowGroups * a) * kDKP + c];
#pragma unroll
                for (int b = 0; b < kKeys; ++b) {
                    const float kv = sK[(tn + kTPR * b) * kDKP + c];
#pragma unroll
                    for (int a = 0; a < kRPT; ++a) s[a][b] = fmaf(qv[a], kv, s[a][b]);
                }
            }
        }

        /* ---- mask, online softmax (log2 domain), P to shared memory ---- */
#pragma unroll
        for (int a = 0; a < kRPT; ++a) {
            const int row = tm + kRowGroups * a, i = m0 + row;
            float mx = kNegInf;
#pragma unroll
            for (int b = 0; b < kKeys; ++b) {
                const int j = n0 + tn + kTPR * b;
                const bool keep = j < n_hi && (window == 0 || abs(i - j) <= window);
                s[a][b] = keep ? s[a][b] * sl2 : kNegInf;
                mx = fmaxf(mx, s[a][b]);
            }
            mx = fmaxf(m_run[a], row_max(mx));
            const float m_use = mx == kNegInf ? 0.f : mx; /* nothing attended yet: keep zeros */
            const float alpha = exp2f(m_run[a] - m_use);
            m_run[a] = mx;
            l_part[a] *= alpha;
#pragma unroll
            for (int c = 0; c < kCols; ++c) acc[a][c] *= alpha;
#pragma unroll
            for (int b = 0; b < kKeys; ++b) {
                const float pr = exp2f(s[a][b] - m_use);
                l_part[a] += pr;
                sP[row * kBNP + tn + kTPR * b] = pr;
            }
        }
        __syncthreads();

        /* ---- O += P V over this thread's columns ---- */
#pragma unroll 2
        for (int j4 = 0; j4 < BLOCK_N / 4; ++j4) {
            float4 pv[kRPT];
#pragma unroll
            for (int a = 0; a < kRPT; ++a)
                pv[a] = *reinterpret_cast<const float4*>(sP + (tm + kRowGroups * a) * kBNP + 4 * j4);
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {
                const float* vrow = sV + (4 * j4 + jj) * DK;
                if constexpr (kVecCols) {
#pragma unroll
                    for (int g = 0; g < kCols / 4; ++g) {
                        const float4 vv = *reinterpret_cast<const float4*>(vrow + 4 * (tn + kTPR * g));
#pragma unroll
                        for (int a = 0; a < kRPT; ++a) {
                            const float pr = jj == 0 ? pv[a].x : jj == 1 ? pv[a].y : jj == 2 ? pv[a].z : pv[a].w;
                            acc[a][4 * g + 0] = fmaf(pr, vv.x, acc[a][4 * g + 0]);
                            acc[a][4 * g + 1] = fmaf(pr, vv.y, acc[a][4 * g + 1]);
                            acc[a][4 * g + 2] = fmaf(pr, vv.z, acc[a][4 * g + 2]);
                            acc[a][4 * g + 3] = fmaf(pr, vv.w, acc[a][4 * g + 3]);
                        }
                    }
                } else {
#pragma unroll
                    for (int c = 0; c < kCols; ++c) {
                        const float vv = vrow[tn + kTPR * c];
#pragma unroll
                        for (int a = 0; a < kRPT; ++a) {
                            const float pr = jj == 0 ? pv[a].x : jj == 1 ? pv[a].y : jj == 2 ? pv[a].z : pv[a].w;
                            acc[a][c] = fmaf(pr, vv, acc[a][c]);
                        }
                    }
                }
            }
        }
    }

    /* ---- normalise and store ---- */
#pragma unroll
    for (int a = 0; a < kRPT; ++a) {
        const int i = m0 + tm + kRowGroups * a;
        const float l = row_sum(l_part[a]); /* > 0: every row attends to itself */
        if (i >= N) continue;
        /* true divisions (d_k per row, against N d_k FMAs): correctly rounded quotients */
        float* orow = o + (long long)i * stride + col0;
        if constexpr (kVecCols) {
#pragma unroll
            for (int g = 0; g < kCols / 4; ++g)
                *reinterpret_cast<float4*>(orow + 4 * (tn + kTPR * g)) =
                    make_float4(acc[a][4 * g] / l, acc[a][4 * g + 1] / l, acc[a][4 * g + 2] / l, acc[a][4 * g + 3] / l);
        } else {
#pragma unroll
            for (int c = 0; c < kCols; ++c) orow[tn + kTPR * c] = acc[a][c] / l;
        }
    }
}

/* sliding_window_attention: sliding-window attention, fp32 on the
 * CUDA cores, specialised for a window known at compile time: row i attends to
 * keys [i - WINDOW, i + WINDOW]. Contract: common/multihead_params.h (the
 * multihead_attention operation with window = WINDOW; [M][d] input
 * is its h = 1 case).
 *
 * A block owns BLOCK_M consecutive rows of one head, so every key they attend
 * to lies in one band of BLOCK_M + 2 WINDOW rows: K and V of the band go to
 * shared memory once, and each row gets exactly its 2 WINDOW + 1 scores (no
 * masked tiles, no online rescaling). The softmax is three steps on
 * the whole window: row max, exponentials and their sum, weighted sum of V.
 *
 * Threads: THREADS_PER_ROW consecutive lanes share a row (every
 * THREADS_PER_ROW-th window offset for the scores, every THREADS_PER_ROW-th
 * group of 4 columns for the output; maxima and sums by shuffles). Each thread
 * owns ROWS_PER_THREAD consecutive rows. The probabilities are stored in band
 * coordinates (row r's weight of band key b at sP[r][b], zero outside its
 * window), so the weighted sum walks band keys and each V row read from shared
 * memory feeds all ROWS_PER_THREAD rows of the thread.
 *
 * Launch: grid [ceil_div(N, BLOCK_M), h], block [BLOCK_M / ROWS_PER_THREAD *
 * THREADS_PER_ROW], dynamic shared memory SWA_SMEM_BYTES (the spec's
 * shared_bytes is the same expression). No workspace.
 */
#include "common/multihead_params.h"
#include "cuda/ptx/math.cuh"

#ifndef DK
#define DK 64
#endif
#ifndef WINDOW
#define WINDOW 32
#endif
#ifndef BLOCK_M
#define BLOCK_M 32
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 8
#endif
#ifndef ROWS_PER_THREAD
#define ROWS_PER_THREAD 2
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

#if WINDOW < 1
#error "sliding_window_attention: WINDOW must be at least 1 (window 0 is full attention: multihead_attention.cu)"
#endif
#if THREADS_PER_ROW != 1 && THREADS_PER_ROW != 2 && THREADS_PER_ROW != 4 && THREADS_PER_ROW != 8 && \
    THREADS_PER_ROW != 16 && THREADS_PER_ROW != 32
#error "sliding_window_attention: THREADS_PER_ROW must be a power of two <= 32 (a row's lanes share a warp)"
#endif
#if BLOCK_M % ROWS_PER_THREAD != 0 || DK % THREADS_PER_ROW != 0
#error "sliding_window_attention: ROWS_PER_THREAD must divide BLOCK_M and THREADS_PER_ROW must divide DK"
#endif

#define SWA_SPAN (2 * WINDOW + 1)           /* keys in one row's window */
#define SWA_BAND (BLOCK_M + 2 * WINDOW)     /* keys in the block's band */
#define SWA_DKP (DK % 4 == 0 ? DK + 4 : DK + 1)
#define SWA_BANDP (((SWA_BAND + 3) / 4) * 4 + 4) /* sP row stride: float4-aligned, padded */
#define SWA_SMEM_BYTES (4 * ((BLOCK_M + SWA_BAND) * SWA_DKP + SWA_BAND * DK + BLOCK_M * SWA_BANDP))

namespace swa {

using namespace ptx;

constexpr int kTPR = THREADS_PER_ROW;
constexpr int kRPT = ROWS_PER_THREAD;
constexpr int kRowGroups = BLOCK_M / kRPT;
constexpr int kThreads = kRowGroups * kTPR;
constexpr int kSpan = SWA_SPAN, kBand = SWA_BAND;
constexpr int kOffs = (kSpan + kTPR - 1) / kTPR; /* window offsets per row per thread */
constexpr bool kVec = DK % 4 == 0;
constexpr bool kVecCols = DK % (4 * kTPR) == 0;
constexpr int kCols = DK / kTPR;
constexpr int kDKP = SWA_DKP, kBandP = SWA_BANDP;
constexpr float kLog2e = 1.4426950408889634f;
constexpr unsigned kWarpMask = kThreads >= 32 ? 0xffffffffu : (1u << kThreads) - 1u;
#define kNegInf (__int_as_float(0xff800000))

static_assert(kThreads <= 1024, "too many threads per block");
static_assert(kThreads % 32 == 0 || kThreads < 32, "whole warps, or a single partial one");

/* max and sum over the kTPR consecutive lanes of a row */
__device__ __forceinline__ float row_max(float x) { return lanes_max<kTPR>(x, kWarpMask); }
__device__ __forceinline__ float row_sum(float x) { return lanes_sum<kTPR>(x, kWarpMask); }

/* rows [row0, row0 + rows) of one head's columns into a shared tile; zeros outside [0, valid) */
__device__ __forceinline__ void load_rows(float* dst, int dst_stride, const float* __restrict__ src, int row0,
                                          int rows, int valid, int stride, int tid) {
    if constexpr (kVec) {
        constexpr int kC4 = DK / 4;
        for (int e = tid; e < rows * kC4; e += kThreads) {
            const int r = e / kC4, c4 = e % kC4, j = row0 + r;
            float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
            if (j >= 0 && j < valid) x = __ldg(reinterpret_cast<const float4*>(src + (long long)j * stride) + c4);
            *reinterpret_cast<float4*>(dst + r * dst_stride + 4 * c4) = x;
        }
    } else {
        for (int e = tid; e < rows * DK; e += kThreads) {
            const int r = e / DK, c = e % DK, j = row0 + r;
            dst[r * dst_stride + c] = (j >= 0 && j < valid) ? __ldg(src + (long long)j * stride + c) : 0.f;
        }
    }
}

}  // namespace swa

extern "C" __global__ void __launch_bounds__(swa::kThreads, MIN_BLOCKS)
sliding_window_attention(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                         float* __restrict__ o, float* __restrict__ ws, multihead_params p) {
    using namespace swa;
    (void)ws;
    extern __shared__ __align__(16) float smem[];
    float* sQ = smem;                    /* [BLOCK_M][kDKP] */
    float* sK = sQ + BLOCK_M * kDKP;     /* [kBand][kDKP]   */
    float* sV = sK + kBand * kDKP;       /* [kBand][DK]     */
    float* sP = sV + kBand * DK;         /* [BLOCK_M][kBandP], band coordinates */

    const int tid = threadIdx.x;
    const int tn = tid % kTPR, tm = tid / kTPR;
    const int m0 = blockIdx.x * BLOCK_M;
    const int col0 = blockIdx.y * DK;
    const int N = p.N, stride = p.d_model;
    const int band0 = m0 - WINDOW; /* key of band row 0 */
    const int row0 = tm * kRPT;    /* this thread's first row in the block */
    const float sl2 = p.scale * kLog2e;

    load_rows(sQ, kDKP, q + col0, m0, BLOCK_M, N, stride, tid);
    load_rows(sK, kDKP, k + col0, band0, kBand, N, stride, tid);
    load_rows(sV, DK, v + col0, band0, kBand, N, stride, tid);
    for (int e = tid; e < BLOCK_M * kBandP; e += kThreads) sP[e] = 0.f;
    __syncthreads();

    /* ---- steps 1 and 2: scores, row max, exponentials, row sum ---- */
    /* offset t of row r is key m0 + r - WINDOW + t, band row r + t */
    float row_den[kRPT];
#pragma unroll
    for (int a = 0; a < kRPT; ++a) {
        const int row = row0 + a, i = m0 + row;
        float s[kOffs];
        float mx = kNegInf;
#pragma unroll
        for (int b = 0; b < kOffs; ++b) {
            const int t = tn + kTPR * b, j = i - WINDOW + t;
            float dot = 0.f;
            if (t < kSpan) {
                const float* kr = sK + (row + t) * kDKP;
                const float* qr = sQ + row * kDKP;
                if constexpr (kVec) {
#pragma unroll
                    for (int c4 = 0; c4 < DK / 4; ++c4)
                        dot = dot4(*reinterpret_cast<const float4*>(qr + 4 * c4),
                                   *reinterpret_cast<const float4*>(kr + 4 * c4), dot);
                } else {
#pragma unroll
                    for (int c = 0; c < DK; ++c) dot = fmaf(qr[c], kr[c], dot);
                }
            }
            s[b] = (t < kSpan && j >= 0 && j < N) ? dot * sl2 : kNegInf; /* log2 domain */
            mx = fmaxf(mx, s[b]);
        }
        mx = row_max(mx); /* finite: key i itself is always in range for rows < N */
        if (mx == kNegInf) mx = 0.f;
        float sum = 0.f;
#pragma unroll
        for (int b = 0; b < kOffs; ++b) {
            const int t = tn + kTPR * b;
            const float e = exp2f(s[b] - mx);
            sum += e;
            if (t < kSpan) sP[row * kBandP + row + t] = e;
        }
        sum = row_sum(sum);
        row_den[a] = sum; /* >= 1: the row's maximum contributes exp2(0) */
    }
    __syncthreads();

    /* ---- step 3: weighted sum of V over the band keys of this thread's rows ---- */
    float acc[kRPT][kCols];
#pragma unroll
    for (int a = 0; a < kRPT; ++a)
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[a][c] = 0.f;

#pragma unroll 2
    for (int bk = row0; bk < row0 + kSpan + kRPT - 1; ++bk) {
        float pr[kRPT];
#pragma unroll
        for (int a = 0; a < kRPT; ++a) pr[a] = sP[(row0 + a) * kBandP + bk];
        const float* vrow = sV + bk * DK;
        if constexpr (kVecCols) {
#pragma unroll
            for (int g = 0; g < kCols / 4; ++g) {
                const float4 vv = *reinterpret_cast<const float4*>(vrow + 4 * (tn + kTPR * g));
#pragma unroll
                for (int a = 0; a < kRPT; ++a) {
                    acc[a][4 * g + 0] = fmaf(pr[a], vv.x, acc[a][4 * g + 0]);
                    acc[a][4 * g + 1] = fmaf(pr[a], vv.y, acc[a][4 * g + 1]);
                    acc[a][4 * g + 2] = fmaf(pr[a], vv.z, acc[a][4 * g + 2]);
                    acc[a][4 * g + 3] = fmaf(pr[a], vv.w, acc[a][4 * g + 3]);
                }
            }
        } else {
#pragma unroll
            for (int c = 0; c < kCols; ++c) {
                const float vv = vrow[tn + kTPR * c];
#pragma unroll
                for (int a = 0; a < kRPT; ++a) acc[a][c] = fmaf(pr[a], vv, acc[a][c]);
            }
        }
    }

#pragma unroll
    for (int a = 0; a < kRPT; ++a) {
        const int i = m0 + row0 + a;
        if (i >= N) continue;
        /* true divisions (d_k per row): correctly rounded quotients, as the worked examples print */
        float* orow = o + (long long)i * stride + col0;
        if constexpr (kVecCols) {
#pragma unroll
            for (int g = 0; g < kCols / 4; ++g)
                *reinterpret_cast<float4*>(orow + 4 * (tn + kTPR * g)) =
                    make_float4(acc[a][4 * g] / row_den[a], acc[a][4 * g + 1] / row_den[a],
                                acc[a][4 * g + 2] / row_den[a], acc[a][4 * g + 3] / row_den[a]);
        } else {
#pragma unroll
            for (int c = 0; c < kCols; ++c) orow[tn + kTPR * c] = acc[a][c] / row_den[a];
        }
    }
}

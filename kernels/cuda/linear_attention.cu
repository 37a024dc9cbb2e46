/* linear_attention: linear attention with the elu + 1 feature map,
 * fp32 on the CUDA cores, in three launches. Contract (and workspace layout):
 * common/linear_attention_params.h.
 *
 *   linear_attention_state    grid [d / STATE_TILE, d / STATE_TILE, STATE_SPLITS],
 *                             block [(STATE_TILE / STATE_MICRO)^2]
 *       One STATE_TILE x STATE_TILE tile of S = phi(K)^T V over one of
 *       STATE_SPLITS chunks of rows: rows staged STATE_BK at a time in shared
 *       memory (phi applied on the way), each thread accumulating STATE_MICRO x
 *       STATE_MICRO entries (float4 groups interleaved across the lanes: no bank
 *       conflicts). The blocks of the first column tile also sum phi(K) into z.
 *       STATE_SPLITS = 1: each tile walks all M rows and writes state 0
 *       directly (d^2 / STATE_TILE^2 blocks: few); else partial state 1 + chunk.
 *   linear_attention_combine  grid [ceil_div(d * d + d, 256)], block [256]
 *       state 0 = the partial states summed in chunk order: a fixed order, so
 *       the result does not depend on scheduling. Returns at once when
 *       STATE_SPLITS = 1.
 *   linear_attention_output   grid [any; the spec caps it at the blocks resident at once],
 *                             block [OUT_ROWS / OUT_ROWS_PER_THREAD * THREADS_PER_ROW],
 *                             dynamic shared memory LINATT_OUT_SMEM_BYTES
 *       S and z staged once per block in shared memory, then row tiles of
 *       OUT_ROWS, grid-stride (a capped grid loads the state fewer times):
 *       o_i = phi(q_i) S / (phi(q_i) . z). THREADS_PER_ROW consecutive
 *       lanes share a row (float4 column groups), each thread owns
 *       OUT_ROWS_PER_THREAD rows.
 *
 * d must be a multiple of 4; NVRTC-clean (no includes beyond the contract).
 */
#include "common/linear_attention_params.h"

#ifndef D
#define D 64 /* feature dimension d */
#endif
#ifndef STATE_TILE
#define STATE_TILE 64
#endif
#ifndef STATE_MICRO
#define STATE_MICRO 4
#endif
#ifndef STATE_BK
#define STATE_BK 16
#endif
#ifndef STATE_SPLITS
#define STATE_SPLITS 128
#endif
#ifndef OUT_ROWS
#define OUT_ROWS 64
#endif
#ifndef OUT_ROWS_PER_THREAD
#define OUT_ROWS_PER_THREAD 4
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 8
#endif

#if D % 4 != 0
#error "linear_attention: d must be a multiple of 4"
#endif
#if D % STATE_TILE != 0 || STATE_TILE % STATE_MICRO != 0 || STATE_MICRO % 4 != 0
#error "linear_attention: STATE_TILE | d, STATE_MICRO | STATE_TILE, 4 | STATE_MICRO"
#endif
#if OUT_ROWS % OUT_ROWS_PER_THREAD != 0 || D % (4 * THREADS_PER_ROW) != 0
#error "linear_attention: OUT_ROWS_PER_THREAD | OUT_ROWS and 4 * THREADS_PER_ROW | d"
#endif

#define LINATT_QP (D + 4) /* phi(Q) tile row stride (floats) */
#define LINATT_OUT_SMEM_BYTES (4 * (D * D + D + OUT_ROWS * LINATT_QP))

namespace linatt {

constexpr int kT1 = STATE_TILE / STATE_MICRO;  /* threads per tile dimension */
constexpr int kStateThreads = kT1 * kT1;
constexpr int kG = STATE_MICRO / 4;            /* float4 groups per thread per dimension */
constexpr int kOutGroups = OUT_ROWS / OUT_ROWS_PER_THREAD;
constexpr int kOutThreads = kOutGroups * THREADS_PER_ROW;
constexpr int kOutG = D / (4 * THREADS_PER_ROW); /* float4 column groups per thread */
constexpr int kCombineThreads = 256;

static_assert(kStateThreads <= 1024 && kOutThreads <= 1024, "too many threads per block");
constexpr int kZPer = (STATE_TILE + kStateThreads - 1) / kStateThreads; /* z features per thread */

__device__ __forceinline__ float phi(float x) { return x > 0.f ? x + 1.f : expf(x); }
__device__ __forceinline__ float4 phi4(float4 x) { return make_float4(phi(x.x), phi(x.y), phi(x.z), phi(x.w)); }
__device__ __forceinline__ float comp(float4 x, int e) { return e == 0 ? x.x : e == 1 ? x.y : e == 2 ? x.z : x.w; }

}  // namespace linatt

extern "C" __global__ void __launch_bounds__(linatt::kStateThreads)
linear_attention_state(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                       float* __restrict__ o, float* __restrict__ ws, linear_attention_params p) {
    using namespace linatt;
    (void)q, (void)o;
    __shared__ __align__(16) float sK[STATE_BK][STATE_TILE]; /* phi(K), features a0 .. */
    __shared__ __align__(16) float sV[STATE_BK][STATE_TILE]; /* V, features c0 .. */

    const int tid = threadIdx.x;
    const int tc = tid % kT1, ta = tid / kT1;
    const int c0 = blockIdx.x * STATE_TILE, a0 = blockIdx.y * STATE_TILE;
    const bool sums_z = blockIdx.x == 0 && tid < STATE_TILE; /* z: features tid + kStateThreads * u of the tile */
    const int chunk = (p.M + STATE_SPLITS - 1) / STATE_SPLITS;
    const int r_begin = blockIdx.z * chunk, r_end = min(p.M, r_begin + chunk);

    float acc[STATE_MICRO][STATE_MICRO];
#pragma unroll
    for (int x = 0; x < STATE_MICRO; ++x)
#pragma unroll
        for (int y = 0; y < STATE_MICRO; ++y) acc[x][y] = 0.f;
    float z[kZPer];
#pragma unroll
    for (int u = 0; u < kZPer; ++u) z[u] = 0.f;

#pragma unroll 1
    for (int r0 = r_begin; r0 < r_end; r0 += STATE_BK) {
        __syncthreads();
        constexpr int kC4 = STATE_TILE / 4;
        for (int e = tid; e < STATE_BK * kC4; e += kStateThreads) {
            const int r = e / kC4, c4 = e % kC4;
            float4 kv = make_float4(0.f, 0.f, 0.f, 0.f), vv = kv;
            if (r0 + r < r_end) {
                kv = phi4(__ldg(reinterpret_cast<const float4*>(k + (long long)(r0 + r) * D + a0) + c4));
                vv = __ldg(reinterpret_cast<const float4*>(v + (long long)(r0 + r) * D + c0) + c4);
            }
            *reinterpret_cast<float4*>(&sK[r][4 * c4]) = kv;
            *reinterpret_cast<float4*>(&sV[r][4 * c4]) = vv;
        }
        __syncthreads();
#pragma unroll 4
        for (int r = 0; r < STATE_BK; ++r) {
            float4 ka[kG], vc[kG];
#pragma unroll
            for (int g = 0; g < kG; ++g) {
                ka[g] = *reinterpret_cast<const float4*>(&sK[r][4 * (ta + kT1 * g)]);
                vc[g] = *reinterpret_cast<const float4*>(&sV[r][4 * (tc + kT1 * g)]);
            }
#pragma unroll
            for (int x = 0; x < STATE_MICRO; ++x)
#pragma unroll
                for (int y = 0; y < STATE_MICRO; ++y)
                    acc[x][y] = fmaf(comp(ka[x / 4], x % 4), comp(vc[y / 4], y % 4), acc[x][y]);
        }
        if (sums_z) /* rows past r_end were staged as phi = 0 */
#pragma unroll
            for (int u = 0; u < kZPer; ++u) {
                const int f = tid + kStateThreads * u;
                if (f < STATE_TILE)
#pragma unroll 4
                    for (int r = 0; r < STATE_BK; ++r) z[u] += sK[r][f];
            }
    }

    float* state = ws + (STATE_SPLITS == 1 ? 0 : (1 + blockIdx.z) * LINATT_STATE_FLOATS(D));
#pragma unroll
    for (int x = 0; x < STATE_MICRO; ++x) {
        const int a = a0 + 4 * (ta + kT1 * (x / 4)) + x % 4;
#pragma unroll
        for (int g = 0; g < kG; ++g)
            *reinterpret_cast<float4*>(state + (long long)a * D + c0 + 4 * (tc + kT1 * g)) =
                make_float4(acc[x][4 * g], acc[x][4 * g + 1], acc[x][4 * g + 2], acc[x][4 * g + 3]);
    }
    if (sums_z)
#pragma unroll
        for (int u = 0; u < kZPer; ++u)
            if (tid + kStateThreads * u < STATE_TILE) state[D * D + a0 + tid + kStateThreads * u] = z[u];
}

extern "C" __global__ void __launch_bounds__(linatt::kCombineThreads)
linear_attention_combine(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                         float* __restrict__ o, float* __restrict__ ws, linear_attention_params p) {
    (void)q, (void)k, (void)v, (void)o, (void)p;
    if (STATE_SPLITS == 1) return;
    constexpr int n = LINATT_STATE_FLOATS(D);
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    float sum = 0.f;
#pragma unroll 8
    for (int s = 0; s < STATE_SPLITS; ++s) sum += __ldcg(ws + (long long)(1 + s) * n + e);
    ws[e] = sum;
}

extern "C" __global__ void __launch_bounds__(linatt::kOutThreads)
linear_attention_output(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                        float* __restrict__ o, float* __restrict__ ws, linear_attention_params p) {
    using namespace linatt;
    (void)k, (void)v;
    extern __shared__ __align__(16) float smem[];
    float* sS = smem;                /* [D][D] */
    float* sZ = sS + D * D;          /* [D]    */
    float* sQ = sZ + D;              /* [OUT_ROWS][LINATT_QP]: phi(Q) */

    const int tid = threadIdx.x;
    const int tn = tid % THREADS_PER_ROW, tm = tid / THREADS_PER_ROW;
    const int M = p.M;

    /* the state, once per block (written by the previous launches: plain loads, not the read-only path) */
    for (int e = tid; e < (D * D + D) / 4; e += kOutThreads)
        reinterpret_cast<float4*>(sS)[e] = __ldcg(reinterpret_cast<const float4*>(ws) + e);

    const int ntiles = (M + OUT_ROWS - 1) / OUT_ROWS;
#pragma unroll 1
    for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const int m0 = tile * OUT_ROWS;
        __syncthreads(); /* the previous tile's readers of sQ are done (and the state is in) */
        constexpr int kC4 = D / 4;
        for (int e = tid; e < OUT_ROWS * kC4; e += kOutThreads) {
            const int r = e / kC4, c4 = e % kC4;
            float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
            if (m0 + r < M) x = phi4(__ldg(reinterpret_cast<const float4*>(q + (long long)(m0 + r) * D) + c4));
            *reinterpret_cast<float4*>(sQ + r * LINATT_QP + 4 * c4) = x;
        }
        __syncthreads();

        float num[OUT_ROWS_PER_THREAD][4 * kOutG], den[OUT_ROWS_PER_THREAD];
#pragma unroll
        for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
            den[x] = 0.f;
#pragma unroll
            for (int c = 0; c < 4 * kOutG; ++c) num[x][c] = 0.f;
        }
#pragma unroll 2
        for (int a4 = 0; a4 < D / 4; ++a4) {
            float4 qa[OUT_ROWS_PER_THREAD];
#pragma unroll
            for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x)
                qa[x] = *reinterpret_cast<const float4*>(sQ + (tm + kOutGroups * x) * LINATT_QP + 4 * a4);
            const float4 z4 = *reinterpret_cast<const float4*>(sZ + 4 * a4);
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float* srow = sS + (4 * a4 + e) * D;
#pragma unroll
                for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) den[x] = fmaf(comp(qa[x], e), comp(z4, e), den[x]);
#pragma unroll
                for (int g = 0; g < kOutG; ++g) {
                    const float4 s4 = *reinterpret_cast<const float4*>(srow + 4 * (tn + THREADS_PER_ROW * g));
#pragma unroll
                    for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
                        const float qv = comp(qa[x], e);
                        num[x][4 * g + 0] = fmaf(qv, s4.x, num[x][4 * g + 0]);
                        num[x][4 * g + 1] = fmaf(qv, s4.y, num[x][4 * g + 1]);
                        num[x][4 * g + 2] = fmaf(qv, s4.z, num[x][4 * g + 2]);
                        num[x][4 * g + 3] = fmaf(qv, s4.w, num[x][4 * g + 3]);
                    }
                }
            }
        }
#pragma unroll
        for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
            const int i = m0 + tm + kOutGroups * x;
            if (i >= M) continue;
            /* true divisions, not a reciprocal: the worked examples' printed digits are correctly rounded quotients */
#pragma unroll
            for (int g = 0; g < kOutG; ++g)
                __stcs(reinterpret_cast<float4*>(o + (long long)i * D) + tn + THREADS_PER_ROW * g,
                       make_float4(num[x][4 * g] / den[x], num[x][4 * g + 1] / den[x], num[x][4 * g + 2] / den[x],
                                   num[x][4 * g + 3] / den[x]));
        }
    }
}

/* similarity: multi-head attention similarity, OpenCL C, fp32.
 * Contract: common/similarity_params.h. The OpenCL twin of
 * kernels/cuda/similarity.cu for two of its strategies, with the same
 * tunables and launch geometry, so the same spec kernels run on both:
 *
 *   HEAD_STRATEGY 0 (sequential): one work-item per (query, key) pair, heads in
 *     a loop, both projections recomputed inside it (the per-pair design's kernel).
 *     similarity_sequential: grid [ceil_div(M, BX), ceil_div(N, BY)], block [BX, BY].
 *   HEAD_STRATEGY 4 (projected): the projections as GEMMs into ws (queries
 *     first, then keys unless keys_ahead), then the GEMM of the projections.
 *     similarity_project: grid [ceil_div(proj_dim, BN), ceil_div(max(N, M), BM),
 *     2 - keys_ahead], block [(BM/TM)*(BN/TN)]; similarity_product: grid
 *     [ceil_div(M, BN), ceil_div(N, BM)], same block.
 *
 * The GEMM stages BK columns of both operands transposed in local memory and
 * gives each work-item TM x TN outputs; single-buffered (this file is what
 * PoCL runs in CI; GPUs run the CUDA file).
 */
#include "common/similarity_params.h"

#ifndef HEAD_STRATEGY
#define HEAD_STRATEGY 4
#endif
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 4
#endif
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif

#if HEAD_STRATEGY != 0 && HEAD_STRATEGY != 4
#error "similarity.cl: only HEAD_STRATEGY 0 (sequential) and 4 (projected) have an OpenCL version"
#endif
#if BK % 4 != 0 || BK < 4
#error "similarity.cl: BK must be a positive multiple of 4"
#endif
#if BM % TM != 0 || BN % TN != 0
#error "similarity.cl: TM must divide BM and TN divide BN"
#endif

#define GEMM_THREADS ((BM / TM) * (BN / TN))
#define LDA_S (BM + 4)
#define LDB_S (BN + 4)

/* x . w over n floats (n % 4 == 0) */
float dot_row(__global const float* x, __global const float* w, int n) {
    float acc = 0.0f;
    for (int d = 0; d < n; d += 4) acc += dot(vload4(0, x + d), vload4(0, w + d));
    return acc;
}

#if HEAD_STRATEGY == 0
__kernel void similarity_sequential(__global const float* q, __global const float* k, __global const float* wq,
                                    __global const float* wk, __global const float* pk, __global float* out,
                                    __global float* ws, similarity_params p) {
    const int j = get_global_id(0), i = get_global_id(1);
    if (i >= p.N || j >= p.M) return;
    __global const float* qi = q + (size_t)i * p.D;
    __global const float* kj = k + (size_t)j * p.D;
    float total = 0.0f;
    for (int h = 0; h < p.heads; ++h) {
        float head = 0.0f;
        for (int e = 0; e < p.head_dim; ++e) {
            const int f = h * p.head_dim + e;
            head += dot_row(qi, wq + (size_t)f * p.D, p.D) * dot_row(kj, wk + (size_t)f * p.D, p.D);
        }
        total += head;
    }
    out[(size_t)i * p.M + j] = total * p.scale;
}
#endif

#if HEAD_STRATEGY == 4
/* ROWS x BK of a K-contiguous matrix into S [BK][ld_s], transposed; zeros outside */
void stage_transposed(__global const float* src, int ld, int row0, int rows, int k0, int K, int n_rows,
                      __local float* s, int ld_s) {
    for (int idx = get_local_id(0); idx < n_rows * (BK / 4); idx += GEMM_THREADS) {
        const int row = idx / (BK / 4), kk = 4 * (idx % (BK / 4));
        float4 v = (float4)(0.0f);
        if (row0 + row < rows && k0 + kk < K) v = vload4(0, src + (size_t)(row0 + row) * ld + k0 + kk);
        s[(kk + 0) * ld_s + row] = v.x;
        s[(kk + 1) * ld_s + row] = v.y;
        s[(kk + 2) * ld_s + row] = v.z;
        s[(kk + 3) * ld_s + row] = v.w;
    }
}

/* One BM x BN block of C = alpha * A . B^T, A [rows][K] and B [cols][K] K-contiguous */
void gemm_nt_block(__global const float* A, int lda, int rows, __global const float* B, int ldb, int cols, int K,
                   __global float* C, long ldc, float alpha, int row0, int col0, __local float* As,
                   __local float* Bs) {
    const int t = get_local_id(0);
    const int tr = t / (BN / TN), tc = t % (BN / TN);
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        stage_transposed(A, lda, row0, rows, k0, K, BM, As, LDA_S);
        stage_transposed(B, ldb, col0, cols, k0, K, BN, Bs, LDB_S);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
            for (int i = 0; i < TM; ++i) a[i] = As[kk * LDA_S + tr * TM + i];
            for (int j = 0; j < TN; ++j) b[j] = Bs[kk * LDB_S + tc * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + tr * TM + i;
        if (r >= rows) continue;
        for (int j = 0; j < TN; ++j) {
            const int c = col0 + tc * TN + j;
            if (c < cols) C[r * ldc + c] = alpha * acc[i][j];
        }
    }
}

__kernel void similarity_project(__global const float* q, __global const float* k, __global const float* wq,
                                 __global const float* wk, __global const float* pk, __global float* out,
                                 __global float* ws, similarity_params p) {
    __local float As[BK * LDA_S], Bs[BK * LDB_S];
    const int keys = get_group_id(2) == 1;
    const int rows = keys ? p.M : p.N;
    const int row0 = get_group_id(1) * BM;
    if (row0 >= rows) return; /* uniform over the work-group */
    __global float* dst = ws + (keys ? (size_t)p.N * p.proj_dim : 0);
    gemm_nt_block(keys ? k : q, p.D, rows, keys ? wk : wq, p.D, p.proj_dim, p.D, dst, p.proj_dim, 1.0f, row0,
                  get_group_id(0) * BN, As, Bs);
}

__kernel void similarity_product(__global const float* q, __global const float* k, __global const float* wq,
                                 __global const float* wk, __global const float* pk, __global float* out,
                                 __global float* ws, similarity_params p) {
    __local float As[BK * LDA_S], Bs[BK * LDB_S];
    __global const float* keys = p.keys_ahead ? pk : ws + (size_t)p.N * p.proj_dim;
    gemm_nt_block(ws, p.proj_dim, p.N, keys, p.proj_dim, p.M, p.proj_dim, out, p.M, p.scale, get_group_id(1) * BM,
                  get_group_id(0) * BN, As, Bs);
}
#endif

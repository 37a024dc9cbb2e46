/* Linear attention with the elu + 1 feature map, fp32, in three launches.
 * Contract (and workspace layout): common/linear_attention_params.h.
 *
 *   linear_attention_state    grid [d / STATE_TILE, d / STATE_TILE, STATE_SPLITS],
 *                             block [(STATE_TILE / STATE_MICRO)^2]
 *       one STATE_TILE x STATE_TILE tile of S = phi(K)^T V (and the tile's
 *       part of z = sum phi(K)) over one of STATE_SPLITS chunks of rows;
 *       each work-item accumulates STATE_MICRO x STATE_MICRO entries, rows
 *       staged STATE_BK at a time. STATE_SPLITS = 1: the whole of M in one
 *       pass, written straight to state 0; else partial state 1 + chunk.
 *   linear_attention_combine  grid [ceil_div(d * d + d, 256)], block [256]
 *       state 0 = sum of the partial states in chunk order (a fixed order:
 *       the result does not depend on scheduling); nothing when STATE_SPLITS = 1.
 *   linear_attention_output   grid [ceil_div(M, OUT_ROWS)], block
 *                             [OUT_ROWS / OUT_ROWS_PER_THREAD * THREADS_PER_ROW]
 *       o_i = phi(q_i) S / (phi(q_i) . z); THREADS_PER_ROW work-items share a
 *       row (every THREADS_PER_ROW-th column each), each owns
 *       OUT_ROWS_PER_THREAD rows. S and z are staged in local memory.
 */
#include "common/linear_attention_params.h"

#ifndef D
#define D 64 /* feature dimension d */
#endif
#ifndef STATE_TILE
#define STATE_TILE 32
#endif
#ifndef STATE_MICRO
#define STATE_MICRO 4
#endif
#ifndef STATE_BK
#define STATE_BK 16
#endif
#ifndef STATE_SPLITS
#define STATE_SPLITS 8
#endif
#ifndef OUT_ROWS
#define OUT_ROWS 16
#endif
#ifndef OUT_ROWS_PER_THREAD
#define OUT_ROWS_PER_THREAD 1
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 4
#endif

#define ST_THREADS_1D (STATE_TILE / STATE_MICRO)
#define ST_THREADS (ST_THREADS_1D * ST_THREADS_1D)
#define OUT_GROUPS (OUT_ROWS / OUT_ROWS_PER_THREAD)
#define OUT_THREADS (OUT_GROUPS * THREADS_PER_ROW)
#define OUT_COLS (D / THREADS_PER_ROW)
#define COMBINE_THREADS 256

#if D % STATE_TILE != 0 || STATE_TILE % STATE_MICRO != 0
#error "STATE_TILE must divide D and STATE_MICRO must divide STATE_TILE"
#endif
#if OUT_ROWS % OUT_ROWS_PER_THREAD != 0 || D % THREADS_PER_ROW != 0
#error "OUT_ROWS_PER_THREAD must divide OUT_ROWS and THREADS_PER_ROW must divide D"
#endif

inline float phi(float x) { return x > 0.0f ? x + 1.0f : exp(x); }

__kernel __attribute__((reqd_work_group_size(ST_THREADS, 1, 1)))
void linear_attention_state(__global const float* q, __global const float* k, __global const float* v,
                            __global float* o, __global float* ws, const linear_attention_params p) {
    __local float sK[STATE_BK][STATE_TILE]; /* phi(K), features a0 .. a0 + STATE_TILE */
    __local float sV[STATE_BK][STATE_TILE]; /* V, features c0 .. c0 + STATE_TILE */
    (void)q, (void)o;

    const int lid = get_local_id(0);
    const int tc = lid % ST_THREADS_1D, ta = lid / ST_THREADS_1D;
    const int c0 = get_group_id(0) * STATE_TILE, a0 = get_group_id(1) * STATE_TILE;
    const int split = get_group_id(2);
    const int d = p.d;
    const int chunk = (p.M + STATE_SPLITS - 1) / STATE_SPLITS;
    const int r_begin = split * chunk, r_end = min(p.M, r_begin + chunk);

    float acc[STATE_MICRO][STATE_MICRO], zacc[STATE_MICRO];
    for (int x = 0; x < STATE_MICRO; ++x) {
        zacc[x] = 0.0f;
        for (int y = 0; y < STATE_MICRO; ++y) acc[x][y] = 0.0f;
    }

    for (int r0 = r_begin; r0 < r_end; r0 += STATE_BK) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = lid; e < STATE_BK * STATE_TILE; e += ST_THREADS) {
            const int r = e / STATE_TILE, c = e % STATE_TILE;
            const bool in = r0 + r < r_end;
            sK[r][c] = in ? phi(k[(long)(r0 + r) * d + a0 + c]) : 0.0f;
            sV[r][c] = in ? v[(long)(r0 + r) * d + c0 + c] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int r = 0; r < STATE_BK; ++r) {
            float ka[STATE_MICRO], vc[STATE_MICRO];
            for (int x = 0; x < STATE_MICRO; ++x) ka[x] = sK[r][ta + ST_THREADS_1D * x];
            for (int y = 0; y < STATE_MICRO; ++y) vc[y] = sV[r][tc + ST_THREADS_1D * y];
            for (int x = 0; x < STATE_MICRO; ++x) {
                zacc[x] += ka[x];
                for (int y = 0; y < STATE_MICRO; ++y) acc[x][y] = fma(ka[x], vc[y], acc[x][y]);
            }
        }
    }

    __global float* state = ws + (STATE_SPLITS == 1 ? 0 : (1 + split) * LINATT_STATE_FLOATS(d));
    for (int x = 0; x < STATE_MICRO; ++x) {
        const int a = a0 + ta + ST_THREADS_1D * x;
        for (int y = 0; y < STATE_MICRO; ++y) state[(long)a * d + c0 + tc + ST_THREADS_1D * y] = acc[x][y];
        if (c0 == 0 && tc == 0) state[d * d + a] = zacc[x]; /* one writer per feature a */
    }
}

__kernel __attribute__((reqd_work_group_size(COMBINE_THREADS, 1, 1)))
void linear_attention_combine(__global const float* q, __global const float* k, __global const float* v,
                              __global float* o, __global float* ws, const linear_attention_params p) {
    (void)q, (void)k, (void)v, (void)o;
    if (STATE_SPLITS == 1) return;
    const int n = LINATT_STATE_FLOATS(p.d);
    const int e = get_global_id(0);
    if (e >= n) return;
    float sum = 0.0f;
    for (int s = 0; s < STATE_SPLITS; ++s) sum += ws[(long)(1 + s) * n + e];
    ws[e] = sum;
}

__kernel __attribute__((reqd_work_group_size(OUT_THREADS, 1, 1)))
void linear_attention_output(__global const float* q, __global const float* k, __global const float* v,
                             __global float* o, __global float* ws, const linear_attention_params p) {
    __local float sS[D][D];
    __local float sZ[D];
    __local float sQ[OUT_ROWS][D]; /* phi(Q) */
    (void)k, (void)v;

    const int lid = get_local_id(0);
    const int tn = lid % THREADS_PER_ROW, tm = lid / THREADS_PER_ROW;
    const int m0 = get_group_id(0) * OUT_ROWS;
    const int M = p.M;

    for (int e = lid; e < D * D; e += OUT_THREADS) sS[e / D][e % D] = ws[e];
    for (int e = lid; e < D; e += OUT_THREADS) sZ[e] = ws[D * D + e];
    for (int e = lid; e < OUT_ROWS * D; e += OUT_THREADS) {
        const int r = e / D, c = e % D;
        sQ[r][c] = m0 + r < M ? phi(q[(long)(m0 + r) * D + c]) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float num[OUT_ROWS_PER_THREAD][OUT_COLS], den[OUT_ROWS_PER_THREAD];
    for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
        den[x] = 0.0f;
        for (int c = 0; c < OUT_COLS; ++c) num[x][c] = 0.0f;
    }
    for (int a = 0; a < D; ++a) {
        float s[OUT_COLS];
        for (int c = 0; c < OUT_COLS; ++c) s[c] = sS[a][tn + THREADS_PER_ROW * c];
        const float z = sZ[a];
        for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
            const float qa = sQ[tm + OUT_GROUPS * x][a];
            den[x] = fma(qa, z, den[x]);
            for (int c = 0; c < OUT_COLS; ++c) num[x][c] = fma(qa, s[c], num[x][c]);
        }
    }
    for (int x = 0; x < OUT_ROWS_PER_THREAD; ++x) {
        const int i = m0 + tm + OUT_GROUPS * x;
        if (i >= M) continue;
        /* a true division, not a reciprocal: the worked examples' printed digits are correctly rounded quotients */
        for (int c = 0; c < OUT_COLS; ++c) o[(long)i * D + tn + THREADS_PER_ROW * c] = num[x][c] / den[x];
    }
}

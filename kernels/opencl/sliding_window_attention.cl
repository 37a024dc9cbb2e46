/* Sliding-window attention, fp32, specialised for a window known at compile
 * time: row i attends to keys [i - WINDOW, i + WINDOW]. Contract:
 * common/multihead_params.h (the multihead_attention operation with window =
 * WINDOW; sliding-window attention is its h = 1 case).
 *
 * A work-group owns BLOCK_M consecutive rows of one head, so every key they
 * attend to lies in one band of BLOCK_M + 2 WINDOW rows: the band of K and V is
 * loaded into local memory once, and each row's 2 WINDOW + 1 scores are
 * computed exactly, with no masking beyond the sequence ends. The softmax is
 * three steps (max, exponentials and their sum, weighted sum of V)
 * on the whole window at once, not an online one.
 *
 * THREADS_PER_ROW work-items share a row (every THREADS_PER_ROW-th window
 * offset for scores, every THREADS_PER_ROW-th column for the output); each
 * owns ROWS_PER_THREAD rows (strided by BLOCK_M / ROWS_PER_THREAD).
 *
 * Launch: grid [ceil_div(N, BLOCK_M), h], block [BLOCK_M / ROWS_PER_THREAD *
 * THREADS_PER_ROW]. Local memory 4 * (BLOCK_M * (DK + SPAN + 2 THREADS_PER_ROW)
 * + 2 * BAND * DK) bytes. No workspace.
 */
#include "common/multihead_params.h"

#ifndef DK
#define DK 64
#endif
#ifndef WINDOW
#define WINDOW 32
#endif
#ifndef BLOCK_M
#define BLOCK_M 16
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 4
#endif
#ifndef ROWS_PER_THREAD
#define ROWS_PER_THREAD 1
#endif

#define TPR THREADS_PER_ROW
#define RPT ROWS_PER_THREAD
#define ROW_GROUPS (BLOCK_M / RPT)
#define WG_SIZE (ROW_GROUPS * TPR)
#define SPAN (2 * WINDOW + 1)               /* keys in one row's window */
#define BAND (BLOCK_M + 2 * WINDOW)         /* keys in the work-group's band */
#define OFFS_PER_THREAD ((SPAN + TPR - 1) / TPR)
#define COLS_PER_THREAD (DK / TPR)

#if WINDOW < 1
#error "WINDOW must be at least 1 (window 0 is full attention: multihead_attention.cl)"
#endif
#if BLOCK_M % RPT != 0 || DK % TPR != 0
#error "ROWS_PER_THREAD must divide BLOCK_M and THREADS_PER_ROW must divide DK"
#endif

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void sliding_window_attention(__global const float* q, __global const float* k, __global const float* v,
                              __global float* o, __global float* ws, const multihead_params p) {
    __local float sQ[BLOCK_M][DK];
    __local float sK[BAND][DK];
    __local float sV[BAND][DK];
    __local float sP[BLOCK_M][SPAN];
    __local float sMax[BLOCK_M][TPR];
    __local float sSum[BLOCK_M][TPR];
    (void)ws;

    const int lid = get_local_id(0);
    const int tn = lid % TPR, tm = lid / TPR;
    const int m0 = get_group_id(0) * BLOCK_M;
    const int col0 = get_group_id(1) * DK;
    const int N = p.N, stride = p.d_model;
    const int band0 = m0 - WINDOW; /* key of band row 0 */

    for (int e = lid; e < BLOCK_M * DK; e += WG_SIZE) {
        const int r = e / DK, c = e % DK;
        sQ[r][c] = m0 + r < N ? q[(long)(m0 + r) * stride + col0 + c] : 0.0f;
    }
    for (int e = lid; e < BAND * DK; e += WG_SIZE) {
        const int r = e / DK, c = e % DK, j = band0 + r;
        const bool in = j >= 0 && j < N;
        sK[r][c] = in ? k[(long)j * stride + col0 + c] : 0.0f;
        sV[r][c] = in ? v[(long)j * stride + col0 + c] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* step 1: scores of the window (offset t is key i - WINDOW + t, band row row + t) */
    for (int a = 0; a < RPT; ++a) {
        const int row = tm + ROW_GROUPS * a, i = m0 + row;
        float mx = -INFINITY;
        for (int b = 0; b < OFFS_PER_THREAD; ++b) {
            const int t = tn + TPR * b, j = i - WINDOW + t;
            if (t >= SPAN) break;
            float dot = 0.0f;
            for (int c = 0; c < DK; ++c) dot = fma(sQ[row][c], sK[row + t][c], dot);
            const float s = (j >= 0 && j < N) ? dot * p.scale : -INFINITY;
            sP[row][t] = s;
            mx = fmax(mx, s);
        }
        sMax[row][tn] = mx;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* step 2: exponentials against the row's maximum, and their sum */
    for (int a = 0; a < RPT; ++a) {
        const int row = tm + ROW_GROUPS * a;
        float mx = -INFINITY;
        for (int t = 0; t < TPR; ++t) mx = fmax(mx, sMax[row][t]);
        float sum = 0.0f;
        for (int b = 0; b < OFFS_PER_THREAD; ++b) {
            const int t = tn + TPR * b;
            if (t >= SPAN) break;
            const float e = exp(sP[row][t] - mx);
            sP[row][t] = e;
            sum += e;
        }
        sSum[row][tn] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* step 3: weighted sum of V over the window, normalised once at the end */
    for (int a = 0; a < RPT; ++a) {
        const int row = tm + ROW_GROUPS * a, i = m0 + row;
        float den = 0.0f;
        for (int t = 0; t < TPR; ++t) den += sSum[row][t];
        float acc[COLS_PER_THREAD];
        for (int c = 0; c < COLS_PER_THREAD; ++c) acc[c] = 0.0f;
        for (int t = 0; t < SPAN; ++t) {
            const float e = sP[row][t];
            for (int c = 0; c < COLS_PER_THREAD; ++c) acc[c] = fma(e, sV[row + t][tn + TPR * c], acc[c]);
        }
        if (i < N) /* a true division: the worked examples' printed digits are correctly rounded quotients */
            for (int c = 0; c < COLS_PER_THREAD; ++c) o[(long)i * stride + col0 + tn + TPR * c] = acc[c] / den;
    }
}

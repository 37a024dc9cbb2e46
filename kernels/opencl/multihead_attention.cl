/* Multi-head attention over [N][d_model] layout, fp32, flash-style
 * (one pass over the keys with an online softmax, no N x N score matrix).
 * Contract: common/multihead_params.h. A run-time window (|i - j| <= window)
 * narrows the key range of each work-group and masks the edge tiles, so the
 * same kernel also serves sliding-window shapes.
 *
 * Work split: one work-group per (BLOCK_M rows, head). THREADS_PER_ROW
 * work-items share a row: for scores each takes every THREADS_PER_ROW-th key
 * of the tile, for the output every THREADS_PER_ROW-th column; each work-item
 * owns ROWS_PER_THREAD rows (strided by BLOCK_M / ROWS_PER_THREAD).
 *
 * Launch: grid [ceil_div(N, BLOCK_M), h], block [BLOCK_M / ROWS_PER_THREAD *
 * THREADS_PER_ROW]. No workspace.
 */
#include "common/multihead_params.h"

#ifndef DK
#define DK 64 /* d_k = d_model / h */
#endif
#ifndef BLOCK_M
#define BLOCK_M 16 /* rows per work-group: they share each staged K/V tile */
#endif
#ifndef BLOCK_N
#define BLOCK_N 16 /* keys staged in local memory per step */
#endif
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 1
#endif
#ifndef ROWS_PER_THREAD
#define ROWS_PER_THREAD 1 /* more rows per work-item reuse each K / V value loaded */
#endif

#define TPR THREADS_PER_ROW
#define RPT ROWS_PER_THREAD
#define ROW_GROUPS (BLOCK_M / RPT)
#define WG_SIZE (ROW_GROUPS * TPR)
#define KEYS_PER_THREAD (BLOCK_N / TPR)
#define COLS_PER_THREAD (DK / TPR)

#if BLOCK_M % RPT != 0 || BLOCK_N % TPR != 0 || DK % TPR != 0
#error "ROWS_PER_THREAD must divide BLOCK_M; THREADS_PER_ROW must divide BLOCK_N and DK"
#endif

/* log2(e): scores are exponentiated as exp2(s * scale * log2e - m) */
#define LOG2E 1.4426950408889634f

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void multihead_attention(__global const float* q, __global const float* k, __global const float* v,
                         __global float* o, __global float* ws, const multihead_params p) {
    __local float sQ[BLOCK_M][DK];
    __local float sK[BLOCK_N][DK];
    __local float sV[BLOCK_N][DK];
    __local float sP[BLOCK_M][BLOCK_N];
    __local float sRed[BLOCK_M][TPR]; /* per-work-item row maxima, then row sums */
    (void)ws;

    const int lid = get_local_id(0);
    const int tn = lid % TPR, tm = lid / TPR;
    const int m0 = get_group_id(0) * BLOCK_M;
    const int col0 = get_group_id(1) * DK;
    const int N = p.N, stride = p.d_model, window = p.window;
    const float sl2 = p.scale * LOG2E;

    for (int e = lid; e < BLOCK_M * DK; e += WG_SIZE) {
        const int r = e / DK, c = e % DK;
        sQ[r][c] = m0 + r < N ? q[(long)(m0 + r) * stride + col0 + c] : 0.0f;
    }

    /* keys any row of the group attends to */
    const int m_last = min(m0 + BLOCK_M, N) - 1;
    const int n_lo = window > 0 ? max(0, m0 - window) : 0;
    const int n_hi = window > 0 ? min(N, m_last + window + 1) : N;

    float m_run[RPT], l_part[RPT], acc[RPT][COLS_PER_THREAD];
    for (int a = 0; a < RPT; ++a) {
        m_run[a] = -INFINITY;
        l_part[a] = 0.0f;
        for (int c = 0; c < COLS_PER_THREAD; ++c) acc[a][c] = 0.0f;
    }

    for (int n0 = n_lo; n0 < n_hi; n0 += BLOCK_N) {
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile's readers are done */
        for (int e = lid; e < BLOCK_N * DK; e += WG_SIZE) {
            const int r = e / DK, c = e % DK;
            const bool in = n0 + r < n_hi;
            sK[r][c] = in ? k[(long)(n0 + r) * stride + col0 + c] : 0.0f;
            sV[r][c] = in ? v[(long)(n0 + r) * stride + col0 + c] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* scores of this work-item's keys, in the log2 domain, masked */
        float s[RPT][KEYS_PER_THREAD];
        for (int a = 0; a < RPT; ++a) {
            const int row = tm + ROW_GROUPS * a, i = m0 + row;
            float mx = -INFINITY;
            for (int b = 0; b < KEYS_PER_THREAD; ++b) {
                const int key = tn + TPR * b, j = n0 + key;
                float dot = 0.0f;
                for (int c = 0; c < DK; ++c) dot = fma(sQ[row][c], sK[key][c], dot);
                const bool keep = j < n_hi && (window == 0 || abs(i - j) <= window);
                s[a][b] = keep ? dot * sl2 : -INFINITY;
                mx = fmax(mx, s[a][b]);
            }
            sRed[row][tn] = mx;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* online softmax: new running max, rescale, probabilities to local memory */
        for (int a = 0; a < RPT; ++a) {
            const int row = tm + ROW_GROUPS * a;
            float mx = m_run[a];
            for (int t = 0; t < TPR; ++t) mx = fmax(mx, sRed[row][t]);
            const float m_use = mx == -INFINITY ? 0.0f : mx; /* nothing attended yet: keep zeros */
            const float alpha = exp2(m_run[a] - m_use);
            m_run[a] = mx;
            l_part[a] *= alpha;
            for (int c = 0; c < COLS_PER_THREAD; ++c) acc[a][c] *= alpha;
            for (int b = 0; b < KEYS_PER_THREAD; ++b) {
                const float pr = exp2(s[a][b] - m_use);
                l_part[a] += pr;
                sP[row][tn + TPR * b] = pr;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* O += P V over this work-item's columns */
        for (int a = 0; a < RPT; ++a) {
            const int row = tm + ROW_GROUPS * a;
            for (int j = 0; j < BLOCK_N; ++j) {
                const float pr = sP[row][j];
                for (int c = 0; c < COLS_PER_THREAD; ++c) acc[a][c] = fma(pr, sV[j][tn + TPR * c], acc[a][c]);
            }
        }
    }

    /* row sums: each work-item holds the part of its keys */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int a = 0; a < RPT; ++a) sRed[tm + ROW_GROUPS * a][tn] = l_part[a];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int a = 0; a < RPT; ++a) {
        const int row = tm + ROW_GROUPS * a, i = m0 + row;
        float l = 0.0f;
        for (int t = 0; t < TPR; ++t) l += sRed[row][t];
        if (i < N) /* a true division: the worked examples' printed digits are correctly rounded quotients */
            for (int c = 0; c < COLS_PER_THREAD; ++c) o[(long)i * stride + col0 + tn + TPR * c] = acc[a][c] / l;
    }
}

/* Split-KV single-query decode over a paged K/V pool (f32_f16: q and o float,
 * K/V half), for the attention operation's paged shapes (page_size > 0; any
 * q layout; thd gives each sequence its own cache length).
 *
 * Arguments: q, k, v (the pool [num_pages][page_size][Hkv][D]), mask, sinks,
 * o, cu_seqlens_q, cu_seqlens_k, block_table, ws, p (common/attn_params.h).
 *
 * Launches (same arguments), NS = ceil_div(Nkv, SPLIT_KEYS):
 *   paged_decode_split    grid [NS, Hq, B], block [WG]
 *   paged_decode_combine  grid [Hq, B], block [WG]
 * A split is SPLIT_KEYS keys (a multiple of page_size: a work-group walks
 * whole pages) of one sequence: its keys never move with the batch or the
 * cache length, and the combine merges splits in split order, so the result
 * is deterministic, batch-invariant and invariant under cache growth.
 * Inside a split, key j belongs to work-item (j - split start) % WG; the
 * work-items' (m, l, o) merge by a fixed tree.
 * Workspace (floats): [B][Hq][NS][D + 2] (unnormalised o, max m, sum l):
 *   workspace_bytes = 4 * B * Hq * ceil_div(Nkv, SPLIT_KEYS) * (D + 2)
 */
#include "common/attn_params.h"

#ifndef DK
#define DK 128
#endif
#ifndef WG
#define WG 32
#endif
#ifndef SPLIT_KEYS
#define SPLIT_KEYS 256
#endif

#define PART (DK + 2)

inline int max_splits(const attn_params p) { return (p.Nkv + SPLIT_KEYS - 1) / SPLIT_KEYS; }

inline __global float* part_of(__global float* ws, const attn_params p, int b, int h, int s) {
    return ws + (((size_t)b * p.Hq + h) * max_splits(p) + s) * PART;
}

inline float slope_of(const attn_params p, int h) {
    if (p.max_bias <= 0.0f) return 0.0f;
    return h < p.n_head_log2 ? pow(p.m0, (float)(h + 1)) : pow(p.m1, (float)(2 * (h - p.n_head_log2) + 1));
}

/* (m, l) of two partial softmaxes merged; their o's scale by exp(m_i - m). */
inline void merge_ml(float ma, float la, float mb, float lb, float* m, float* l) {
    const float mx = fmax(ma, mb);
    *m = mx;
    *l = mx == -INFINITY ? 0.0f : la * exp(ma - mx) + lb * exp(mb - mx);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void paged_decode_split(__global const float* q, __global const half* k, __global const half* v,
                        __global const half* mask, __global const float* sinks, __global float* o,
                        __global const int* cu_seqlens_q, __global const int* cu_seqlens_k,
                        __global const int* block_table, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int s = get_group_id(0), h = get_group_id(1), b = get_group_id(2);
    const int hk = h / p.q_per_kv;
    const int nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
    const int pos = nk - 1; /* the query is the sequence's last position */
    const long q_start = p.layout == 2 ? (long)cu_seqlens_q[b] * p.stride_q_n : (long)b * p.stride_q_b;
    __global const float* qr = q + q_start + (long)h * p.stride_q_h;
    __global float* part = part_of(ws, p, b, h, s);

    __local float q_l[DK];
    __local float red_m[WG], red_l[WG];
    __local float red_o[WG];
    for (int d = lid; d < DK; d += WG) q_l[d] = qr[d] * p.scale;
    barrier(CLK_LOCAL_MEM_FENCE);

    int first = s * SPLIT_KEYS, end = min(nk, first + SPLIT_KEYS);
    if (p.causal) end = min(end, pos + 1);
    if (p.window > 0) {
        first = max(first, pos - p.window);
        end = min(end, pos + p.window + 1);
    }
    const float slope = slope_of(p, h);
    float m = -INFINITY, l = 0.0f;
    float acc[DK];
    for (int d = 0; d < DK; ++d) acc[d] = 0.0f;
    for (int j = s * SPLIT_KEYS + lid; j < end; j += WG) {
        if (j < first) continue;
        const long page = block_table[b * p.max_pages + j / p.page_size];
        const long row = page * p.stride_k_page + (long)(j % p.page_size) * p.stride_k_n + (long)hk * p.stride_k_h;
        float sc = p.has_mask ? vload_half((size_t)b * p.Nkv + j, mask) : 0.0f;
        if (!(sc > -INFINITY)) continue;
        float dot = 0.0f;
        for (int d = 0; d < DK; ++d) dot = mad(q_l[d], vload_half(row + d, k), dot);
        sc += dot - slope * (float)abs(pos - j);
        if (sc > m) {
            const float corr = exp(m - sc);
            l *= corr;
            for (int d = 0; d < DK; ++d) acc[d] *= corr;
            m = sc;
        }
        const float pj = exp(sc - m);
        l += pj;
        for (int d = 0; d < DK; ++d) acc[d] = mad(pj, vload_half(row + d, v), acc[d]);
    }

    /* (m, l) over the work-group by a fixed tree. */
    red_m[lid] = m;
    red_l[lid] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int half_size = WG / 2; half_size > 0; half_size >>= 1) {
        if (lid < half_size) {
            float mm, ll;
            merge_ml(red_m[lid], red_l[lid], red_m[lid + half_size], red_l[lid + half_size], &mm, &ll);
            red_m[lid] = mm;
            red_l[lid] = ll;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float M = red_m[0], L = red_l[0];
    const float f = m == -INFINITY ? 0.0f : exp(m - M);
    /* o summed over the work-items in work-item order, one column at a time. */
    for (int d = 0; d < DK; ++d) {
        barrier(CLK_LOCAL_MEM_FENCE);
        red_o[lid] = acc[d] * f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            float sum = 0.0f;
            for (int t = 0; t < WG; ++t) sum += red_o[t];
            part[d] = sum;
        }
    }
    if (lid == 0) {
        part[DK] = M; /* -inf: no key of this split attended */
        part[DK + 1] = L;
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void paged_decode_combine(__global const float* q, __global const half* k, __global const half* v,
                          __global const half* mask, __global const float* sinks, __global float* o,
                          __global const int* cu_seqlens_q, __global const int* cu_seqlens_k,
                          __global const int* block_table, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int h = get_group_id(0), b = get_group_id(1);
    const int nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
    const int ns = (nk + SPLIT_KEYS - 1) / SPLIT_KEYS;
    const long o_start = p.layout == 2 ? (long)cu_seqlens_q[b] * p.stride_q_n : (long)b * p.stride_q_b;
    __global float* orow = o + o_start + (long)h * p.stride_q_h;
    for (int d = lid; d < DK; d += WG) {
        float m = -INFINITY, l = 0.0f, acc = 0.0f;
        for (int s = 0; s < ns; ++s) { /* split order: a fixed sequence of roundings */
            const __global float* part = part_of(ws, p, b, h, s);
            const float ms = part[DK];
            if (ms == -INFINITY) continue;
            const float mx = fmax(m, ms);
            const float ca = exp(m - mx), cb = exp(ms - mx);
            l = l * ca + part[DK + 1] * cb;
            acc = acc * ca + part[d] * cb;
            m = mx;
        }
        if (p.has_sinks) {
            const float mx = fmax(m, sinks[h]);
            const float ca = exp(m - mx);
            l = l * ca + exp(sinks[h] - mx);
            acc *= ca;
        }
        orow[d] = l > 0.0f ? acc / l : 0.0f;
    }
}

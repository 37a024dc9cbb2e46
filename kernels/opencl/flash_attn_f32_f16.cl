/* Flash attention, Q/O float, K/V half (llama.cpp's flash_attn_f32_f16.cl design,
 * kernels/cuda/flash_attn_f32_f16.cu ports it): prefill `flash_attn_f32_f16` and single-query decode
 * `flash_attn_f32_f16_q1`. Contract: common/attn_params.h.
 *
 * Builds without cl_khr_fp16 (PoCL): K, V and the mask are only ever read with
 * vload_half*, no half variable or half arithmetic appears.
 *
 * Prefill launch: grid [ceil_div(Nq, BLOCK_M), Hq, B], block [BLOCK_M].
 * Decode launch:  grid [Hq, B], block [DEC_WG_SIZE]. No workspace.
 * Split-KV decode (DEC_SPLIT_MODE, at the end of the file): two launches,
 * `flash_attn_f32_f16_q1_split` then `flash_attn_f32_f16_q1_combine`, with a workspace.
 */
#include "common/attn_params.h"

/* ---- compile-time shape and tunables ---------------------------------- */

#ifndef DK
#define DK 128
#endif
#ifndef DV
#define DV DK
#endif

/* Query rows per work-group, one per work-item. More rows share each staged
 * K/V tile (less global traffic per row) but leave fewer work-groups. */
#ifndef BLOCK_M
#define BLOCK_M 32
#endif
/* KV rows staged in local memory per step: LDS = 4*BLOCK_N*(DK + DV_TILE) bytes,
 * two barriers per step. */
#ifndef BLOCK_N
#define BLOCK_N 32
#endif
/* Output columns per pass. The per-work-item accumulator is DV_TILE floats on
 * top of the DK floats of q; DV/DV_TILE passes each re-walk all of K and V.
 * Small tiles avoid register spills, large ones avoid the re-walks. */
#ifndef DV_TILE
#if DV < 32
#define DV_TILE DV
#else
#define DV_TILE 32
#endif
#endif

/* Decode: work-items per (head, sequence); each owns the keys lid, lid+WG, ... */
#ifndef DEC_WG_SIZE
#define DEC_WG_SIZE 64
#endif
/* Decode output columns per pass; 0 = all of DV in one pass (no K re-walk). */
#ifndef DEC_DV_TILE
#define DEC_DV_TILE 0
#endif
/* Columns combined per step of the decode reduction: its local memory stays
 * 4*(DEC_WG_SIZE*(DEC_RED_COLS+4) + DK) bytes whatever DEC_DV_TILE is. */
#ifndef DEC_RED_COLS
#define DEC_RED_COLS 16
#endif

/* Split-KV decode: 0 deterministic (fixed key splits), 1 batch-dependent split
 * count (production-style heuristic), 2 atomic combine. See the split kernels. */
#ifndef DEC_SPLIT_MODE
#define DEC_SPLIT_MODE 0
#endif
/* Keys per split (modes 0 and 2); the upper bound of the split count is ceil(Nkv / DEC_SPLIT_KEYS). */
#ifndef DEC_SPLIT_KEYS
#define DEC_SPLIT_KEYS 256
#endif
/* Mode 1: work-groups the heuristic aims for (about two waves of a large GPU). */
#ifndef DEC_TARGET_GROUPS
#define DEC_TARGET_GROUPS 256
#endif

#if DEC_DV_TILE == 0
/* all of DV in one pass, padded to whole DEC_RED_COLS reduction chunks */
#define DEC_DVT (DV <= DEC_RED_COLS ? DV : (DV + DEC_RED_COLS - 1) / DEC_RED_COLS * DEC_RED_COLS)
#else
#define DEC_DVT DEC_DV_TILE
#endif

#if DEC_DVT < DEC_RED_COLS
#define DEC_RC0 DEC_DVT
#else
#define DEC_RC0 DEC_RED_COLS
#endif
#if DEC_WG_SIZE < DEC_RC0
#define DEC_RC DEC_WG_SIZE
#else
#define DEC_RC DEC_RC0
#endif

#define DK4 (DK / 4)
#define DVT4 (DV_TILE / 4)
#define DEC_DVT4 (DEC_DVT / 4)
/* A DV tile that does not divide DV (any D that is a multiple of 4 takes every
 * tile size): the last pass is padded, its columns from DV on are loaded as
 * zeros and never stored. 0 when the tile divides DV, so the tests below
 * compile away. */
#define DV_PADDED (DV % DV_TILE != 0)
#define DEC_DV_PADDED (DV % DEC_DVT != 0)

#if DK < 4 || DK % 4 != 0 || DV < 4 || DV % 4 != 0
#error "DK and DV must be positive multiples of 4"
#endif
#if BLOCK_M < 1 || BLOCK_N < 1
#error "BLOCK_M and BLOCK_N must be positive"
#endif
#if DV_TILE < 4 || DV_TILE % 4 != 0
#error "DV_TILE must be a multiple of 4"
#endif
#if DEC_WG_SIZE < 1 || (DEC_WG_SIZE & (DEC_WG_SIZE - 1)) != 0
#error "DEC_WG_SIZE must be a power of two (tree reduction)"
#endif
#if DEC_DVT < 4 || DEC_DVT % 4 != 0
#error "DEC_DV_TILE must be 0 or a multiple of 4"
#endif
#if DEC_RC < 4 || DEC_RC % 4 != 0 || DEC_DVT % DEC_RC != 0 || DEC_WG_SIZE % DEC_RC != 0
#error "DEC_RED_COLS (and DEC_WG_SIZE) must be multiples of 4 dividing DEC_DV_TILE (or DV) and DEC_WG_SIZE"
#endif
#if DEC_SPLIT_MODE < 0 || DEC_SPLIT_MODE > 2
#error "DEC_SPLIT_MODE must be 0 (deterministic), 1 (batch-dependent heuristic) or 2 (atomic combine)"
#endif
#if DEC_SPLIT_KEYS < 1 || DEC_TARGET_GROUPS < 1
#error "DEC_SPLIT_KEYS and DEC_TARGET_GROUPS must be positive"
#endif

/* ---- helpers ---------------------------------------------------------- */

/* llama.cpp's ALiBi slope, from the float bases the host computed. */
inline float alibi_slope(const attn_params p, int h) {
    if (p.max_bias <= 0.0f) return 0.0f;
    return h < p.n_head_log2 ? pown(p.m0, h + 1) : pown(p.m1, 2 * (h - p.n_head_log2) + 1);
}

/* Keys [*lo, *hi) that causal and window leave to the query at position pos. */
inline void key_range(const attn_params p, int pos, int* lo, int* hi) {
    int a = 0, e = p.Nkv;
    if (p.causal) e = min(e, pos + 1);
    if (p.window > 0) {
        a = max(a, pos - p.window);
        e = min(e, pos + p.window + 1);
    }
    *lo = a;
    *hi = e;
}

/* ---- prefill ---------------------------------------------------------- */

__kernel __attribute__((reqd_work_group_size(BLOCK_M, 1, 1)))
void flash_attn_f32_f16(__global const float* q, __global const half* k, __global const half* v,
                        __global const half* mask, __global const float* sinks,
                        __global float* o, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int row0 = get_group_id(0) * BLOCK_M;
    const int h = get_group_id(1);
    const int b = get_group_id(2);
    const int hk = h / p.q_per_kv;
    const int i = row0 + lid;
    const bool active = i < p.Nq;  /* tail rows only help stage tiles */

    /* K is staged as float: converted once per tile instead of once per row
     * that reads it, at twice the LDS of half. V holds only this pass's columns. */
    __local float4 Ks[BLOCK_N * DK4];
    __local float4 Vs[BLOCK_N * DVT4];

    /* Keys any row of this work-group attends (uniform, so barriers stay legal):
     * causal and window skip whole tiles rather than masking them. */
    const int last = min(row0 + BLOCK_M, p.Nq) - 1;
    int kv_lo, kv_hi, lo_last, hi_first;
    key_range(p, p.kv_offset + row0, &kv_lo, &hi_first);
    key_range(p, p.kv_offset + last, &lo_last, &kv_hi);

    const int pos = p.kv_offset + i;
    int lo, hi;
    key_range(p, pos, &lo, &hi);
    if (!active) hi = lo;

    /* q stays in registers for every pass: DK floats per work-item, the fixed
     * part of the register pressure that the DV tiling works around. */
    float4 q_priv[DK4];
    const __global float* qrow = q + (((size_t)b * p.Hq + h) * p.Nq + (active ? i : 0)) * DK;
#pragma unroll
    for (int c = 0; c < DK4; ++c) q_priv[c] = vload4(c, qrow) * p.scale;

    const float slope = alibi_slope(p, h);
    const float sink = p.has_sinks ? sinks[h] : -INFINITY;
    const __global half* mrow = mask + ((size_t)b * p.Nq + (active ? i : 0)) * p.Nkv;
    const __global half* kbase = k + ((size_t)b * p.Hkv + hk) * p.Nkv * DK;
    const __global half* vbase = v + ((size_t)b * p.Hkv + hk) * p.Nkv * DV;
    __global float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;

    for (int dv0 = 0; dv0 < DV; dv0 += DV_TILE) {
        /* The sink starts the running max and contributes exp(sink - m) = 1. */
        float m = sink;
        float l = p.has_sinks ? 1.0f : 0.0f;
        float4 o_acc[DVT4];
#pragma unroll
        for (int c = 0; c < DVT4; ++c) o_acc[c] = (float4)(0.0f);

        for (int j0 = kv_lo; j0 < kv_hi; j0 += BLOCK_N) {
            for (int idx = lid; idx < BLOCK_N * DK4; idx += BLOCK_M) {
                const int j = j0 + idx / DK4;
                Ks[idx] = j < kv_hi ? vload_half4(0, kbase + (size_t)j * DK + 4 * (idx % DK4)) : (float4)(0.0f);
            }
            for (int idx = lid; idx < BLOCK_N * DVT4; idx += BLOCK_M) {
                const int j = j0 + idx / DVT4;
                Vs[idx] = j < kv_hi && (!DV_PADDED || dv0 + 4 * (idx % DVT4) < DV)
                              ? vload_half4(0, vbase + (size_t)j * DV + dv0 + 4 * (idx % DVT4)) : (float4)(0.0f);
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            const int ja = max(lo - j0, 0), jb = min(hi - j0, BLOCK_N);
            for (int jj = ja; jj < jb; ++jj) {
                const int j = j0 + jj;
                /* Every work-item reads the same Ks row: an LDS broadcast. */
                float4 acc = (float4)(0.0f);
#pragma unroll
                for (int c = 0; c < DK4; ++c) acc = mad(q_priv[c], Ks[jj * DK4 + c], acc);
                float s = (acc.x + acc.y) + (acc.z + acc.w);
                /* Mask rows are per work-item (stride Nkv apart): each walks its
                 * own row sequentially, so cache lines are reused across jj. */
                if (p.has_mask) s += vload_half(j, mrow);
                s = mad(-slope, (float)abs(pos - j), s);
                if (!(s > -INFINITY)) continue;  /* -inf mask entry: no weight, and no exp(-inf - -inf) */
                /* Online softmax one key at a time: no score array in registers or
                 * LDS; the rescale runs only when the max grows. */
                if (s > m) {
                    const float corr = exp(m - s);  /* m may be -inf: corr = 0 */
                    l *= corr;
#pragma unroll
                    for (int c = 0; c < DVT4; ++c) o_acc[c] *= corr;
                    m = s;
                }
                const float pj = exp(s - m);
                l += pj;
#pragma unroll
                for (int c = 0; c < DVT4; ++c) o_acc[c] = mad((float4)(pj), Vs[jj * DVT4 + c], o_acc[c]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        if (active) {
            const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
            for (int c = 0; c < DVT4; ++c)
                if (!DV_PADDED || dv0 + 4 * c < DV) vstore4(o_acc[c] * inv, 0, orow + dv0 + 4 * c);
        }
    }
}

/* ---- decode ----------------------------------------------------------- */

/* Partial softmax states (m, l) of two halves of the work-group, merged. */
inline void merge_ml(float ma, float la, float mb, float lb, float* m, float* l) {
    const float mx = fmax(ma, mb);
    *m = mx;
    *l = mx == -INFINITY ? 0.0f : la * exp(ma - mx) + lb * exp(mb - mx);
}

__kernel __attribute__((reqd_work_group_size(DEC_WG_SIZE, 1, 1)))
void flash_attn_f32_f16_q1(__global const float* q, __global const half* k, __global const half* v,
                           __global const half* mask, __global const float* sinks,
                           __global float* o, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int h = get_group_id(0);
    const int b = get_group_id(1);
    const int hk = h / p.q_per_kv;

    /* q is the same for every work-item: one copy in LDS (broadcast reads)
     * leaves the registers to the DEC_DV_TILE accumulator. */
    __local float4 q_l[DK4];
    __local float red_m[DEC_WG_SIZE];
    __local float red_l[DEC_WG_SIZE];
    /* +1 column: rows written by consecutive work-items fall in distinct banks. */
    __local float red_o[DEC_WG_SIZE * (DEC_RC + 1)];
    __local float red_p[DEC_WG_SIZE];

    const float slope = alibi_slope(p, h);
    const __global half* kbase = k + ((size_t)b * p.Hkv + hk) * p.Nkv * DK;
    const __global half* vbase = v + ((size_t)b * p.Hkv + hk) * p.Nkv * DV;
    /* Work-item 0 alone carries the sink, so it is counted once after the merge. */
    const bool own_sink = p.has_sinks && lid == 0;
    const float sink = own_sink ? sinks[h] : -INFINITY;

    /* Nq is 1 for decode; more rows are handled one after another (correct, slow). */
    for (int i = 0; i < p.Nq; ++i) {
        const __global float* qrow = q + (((size_t)b * p.Hq + h) * p.Nq + i) * DK;
        const __global half* mrow = mask + ((size_t)b * p.Nq + i) * p.Nkv;
        __global float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;
        const int pos = p.kv_offset + i;
        int lo, hi;
        key_range(p, pos, &lo, &hi);

        barrier(CLK_LOCAL_MEM_FENCE);  /* previous row is done reading q_l */
        for (int c = lid; c < DK4; c += DEC_WG_SIZE) q_l[c] = vload4(c, qrow) * p.scale;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int dv0 = 0; dv0 < DV; dv0 += DEC_DVT) {
            float m = sink;
            float l = own_sink ? 1.0f : 0.0f;
            float4 o_acc[DEC_DVT4];
#pragma unroll
            for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] = (float4)(0.0f);

            /* Strided keys: balanced for any Nkv, and a warp's loads of one
             * chunk index touch DEC_WG_SIZE neighbouring rows. */
            for (int j = lo + lid; j < hi; j += DEC_WG_SIZE) {
                float s = p.has_mask ? vload_half(j, mrow) : 0.0f;
                if (!(s > -INFINITY)) continue;  /* masked: skip the K/V reads too */
                const __global half* krow = kbase + (size_t)j * DK;
                float4 acc = (float4)(0.0f);
#pragma unroll 8
                for (int c = 0; c < DK4; ++c) acc = mad(q_l[c], vload_half4(c, krow), acc);
                s += (acc.x + acc.y) + (acc.z + acc.w);
                s = mad(-slope, (float)abs(pos - j), s);
                if (s > m) {
                    const float corr = exp(m - s);
                    l *= corr;
#pragma unroll
                    for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] *= corr;
                    m = s;
                }
                const float pj = exp(s - m);
                l += pj;
                const __global half* vrow = vbase + (size_t)j * DV + dv0;
#pragma unroll
                for (int c = 0; c < DEC_DVT4; ++c)
                    if (!DEC_DV_PADDED || dv0 + 4 * c < DV) o_acc[c] = mad((float4)(pj), vload_half4(c, vrow), o_acc[c]);
            }

            /* Merge (m, l) over the work-group: fixed tree, so deterministic.
             * Every pass gets the same (m, l); redoing it costs log2(WG) barriers. */
            red_m[lid] = m;
            red_l[lid] = l;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s2 = DEC_WG_SIZE / 2; s2 > 0; s2 >>= 1) {
                if (lid < s2) {
                    float mm, ll;
                    merge_ml(red_m[lid], red_l[lid], red_m[lid + s2], red_l[lid + s2], &mm, &ll);
                    red_m[lid] = mm;
                    red_l[lid] = ll;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            const float M = red_m[0], L = red_l[0];
            /* This work-item's share of the output, already normalised. */
            const float f = (m == -INFINITY || !(L > 0.0f)) ? 0.0f : exp(m - M) / L;

            /* Sum the partial accumulators DEC_RC columns at a time: work-item
             * (g, c) adds rows g*RC .. g*RC+RC-1 of column c, then RC work-items
             * add the WG/RC group sums, both in a fixed order. */
#pragma unroll
            for (int cc = 0; cc < DEC_DVT; cc += DEC_RC) {
#pragma unroll
                for (int t = 0; t < DEC_RC; t += 4) {
                    const float4 x = o_acc[(cc + t) / 4] * f;
                    __local float* r = red_o + lid * (DEC_RC + 1) + t;
                    r[0] = x.x;
                    r[1] = x.y;
                    r[2] = x.z;
                    r[3] = x.w;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                {
                    const int c = lid % DEC_RC, g = lid / DEC_RC;
                    float sum = 0.0f;
                    for (int t = 0; t < DEC_RC; ++t) sum += red_o[(g * DEC_RC + t) * (DEC_RC + 1) + c];
                    red_p[lid] = sum;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid < DEC_RC) {
                    float sum = 0.0f;
                    for (int g = 0; g < DEC_WG_SIZE / DEC_RC; ++g) sum += red_p[g * DEC_RC + lid];
                    if (!DEC_DV_PADDED || dv0 + cc + lid < DV) orow[dv0 + cc + lid] = sum;
                }
            }
        }
    }
}

/* ---- split-KV decode --------------------------------------------------- */

/* Production decoders split the keys of a query over several work-groups when
 * B * Hq alone cannot fill the device, then combine the partial softmax states.
 * Whether the result keeps its bits depends on how the splits are chosen and
 * combined (bitwise deterministic or not), which DEC_SPLIT_MODE selects:
 *   0  deterministic: split s holds keys [s*K, (s+1)*K), K = DEC_SPLIT_KEYS,
 *      whatever B is; inside a split a key goes to work-item (j - s*K) % WG and
 *      the work-group reduces in a fixed tree, one query column at a time; the
 *      combine merges the splits in split order. Identical bytes across runs,
 *      batch sizes, and a growing cache (a split's keys never move).
 *   1  batch-dependent heuristic: about DEC_TARGET_GROUPS work-groups in all,
 *      so the split count is ceil(DEC_TARGET_GROUPS / (B*Hq)) (at most
 *      ceil(Nkv / K)) and a split is ceil(Nkv / count) keys. Fixed combine
 *      order: deterministic across runs, but NOT batch-invariant (nor
 *      invariant under cache growth: the splits follow Nkv).
 *   2  atomic combine: mode 0's splits; one combine work-group per split adds
 *      its rescaled partial into accumulators with an atomic_cmpxchg loop
 *      (OpenCL 1.2 has no float atomic add), in whatever order the work-groups
 *      run, and the last to arrive normalises: NOT deterministic across runs.
 *
 * Launches (same arguments), NS = ceil_div(Nkv, DEC_SPLIT_KEYS):
 *   flash_attn_f32_f16_q1_split    grid [NS, Hq, B], block [DEC_WG_SIZE]
 *   flash_attn_f32_f16_q1_combine  grid [DEC_SPLIT_MODE == 2 ? NS : 1, Hq, B], block [DEC_WG_SIZE]
 * Workspace (floats): part [B][Hq][Nq][NS][DV + 2] (unnormalised o, max m, sum l),
 * and for mode 2 acc [B][Hq][Nq][DV + 2] (o, l, arrival counter):
 *   workspace_bytes = 4 * B * Hq * Nq * (NS * (D + 2) + (DEC_SPLIT_MODE == 2 ? D + 2 : 0))
 */

#define DEC_PART (DV + 2)

inline int dec_max_splits(const attn_params p) { return (p.Nkv + DEC_SPLIT_KEYS - 1) / DEC_SPLIT_KEYS; }

inline int dec_num_splits(const attn_params p) {
#if DEC_SPLIT_MODE == 1
    const int groups_without_split = p.B * p.Hq;
    const int n = (DEC_TARGET_GROUPS + groups_without_split - 1) / groups_without_split;
    return max(1, min(n, dec_max_splits(p)));
#else
    return dec_max_splits(p);
#endif
}

inline int dec_split_keys(const attn_params p) {
#if DEC_SPLIT_MODE == 1
    const int n = dec_num_splits(p);
    return (p.Nkv + n - 1) / n;
#else
    return DEC_SPLIT_KEYS;
#endif
}

inline __global float* dec_part(__global float* ws, const attn_params p, int b, int h, int i, int s) {
    return ws + ((((size_t)b * p.Hq + h) * p.Nq + i) * dec_max_splits(p) + s) * DEC_PART;
}

inline __global float* dec_acc(__global float* ws, const attn_params p, int b, int h, int i) {
    return ws + (size_t)p.B * p.Hq * p.Nq * dec_max_splits(p) * DEC_PART + (((size_t)b * p.Hq + h) * p.Nq + i) * DEC_PART;
}

__kernel __attribute__((reqd_work_group_size(DEC_WG_SIZE, 1, 1)))
void flash_attn_f32_f16_q1_split(__global const float* q, __global const half* k, __global const half* v,
                                 __global const half* mask, __global const float* sinks,
                                 __global float* o, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int s = get_group_id(0);
    const int h = get_group_id(1);
    const int b = get_group_id(2);
    const int hk = h / p.q_per_kv;

    __local float4 q_l[DK4];
    __local float red_m[DEC_WG_SIZE];
    __local float red_l[DEC_WG_SIZE];
    __local float red_o[DEC_WG_SIZE * (DEC_RC + 1)];
    __local float red_p[DEC_WG_SIZE];

    if (s >= dec_num_splits(p)) return;  /* the whole work-group leaves: no barrier is split */
    const int s0 = s * dec_split_keys(p), s1 = min(s0 + dec_split_keys(p), p.Nkv);

#if DEC_SPLIT_MODE == 2
    /* The accumulators the atomic combine adds into start at zero every run. */
    if (s == 0)
        for (int i = 0; i < p.Nq; ++i) {
            __global float* acc = dec_acc(ws, p, b, h, i);
            for (int c = lid; c < DEC_PART; c += DEC_WG_SIZE) acc[c] = 0.0f;
        }
#endif

    const float slope = alibi_slope(p, h);
    const __global half* kbase = k + ((size_t)b * p.Hkv + hk) * p.Nkv * DK;
    const __global half* vbase = v + ((size_t)b * p.Hkv + hk) * p.Nkv * DV;

    for (int i = 0; i < p.Nq; ++i) {  /* one query column at a time */
        const __global float* qrow = q + (((size_t)b * p.Hq + h) * p.Nq + i) * DK;
        const __global half* mrow = mask + ((size_t)b * p.Nq + i) * p.Nkv;
        __global float* part = dec_part(ws, p, b, h, i, s);
        const int pos = p.kv_offset + i;
        int lo, hi;
        key_range(p, pos, &lo, &hi);
        const int first = max(lo, s0), end = min(hi, s1);

        barrier(CLK_LOCAL_MEM_FENCE);  /* previous row is done reading q_l */
        for (int c = lid; c < DK4; c += DEC_WG_SIZE) q_l[c] = vload4(c, qrow) * p.scale;
        barrier(CLK_LOCAL_MEM_FENCE);

        float M = -INFINITY, L = 0.0f;
        for (int dv0 = 0; dv0 < DV; dv0 += DEC_DVT) {
            float m = -INFINITY;
            float l = 0.0f;
            float4 o_acc[DEC_DVT4];
#pragma unroll
            for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] = (float4)(0.0f);

            /* Key j belongs to work-item (j - s0) % WG whichever keys the row
             * attends, so a split's partition does not move with Nkv or the window. */
            for (int j = s0 + lid; j < end; j += DEC_WG_SIZE) {
                if (j < first) continue;
                float sc = p.has_mask ? vload_half(j, mrow) : 0.0f;
                if (!(sc > -INFINITY)) continue;
                const __global half* krow = kbase + (size_t)j * DK;
                float4 acc = (float4)(0.0f);
#pragma unroll 8
                for (int c = 0; c < DK4; ++c) acc = mad(q_l[c], vload_half4(c, krow), acc);
                sc += (acc.x + acc.y) + (acc.z + acc.w);
                sc = mad(-slope, (float)abs(pos - j), sc);
                if (sc > m) {
                    const float corr = exp(m - sc);
                    l *= corr;
#pragma unroll
                    for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] *= corr;
                    m = sc;
                }
                const float pj = exp(sc - m);
                l += pj;
                const __global half* vrow = vbase + (size_t)j * DV + dv0;
#pragma unroll
                for (int c = 0; c < DEC_DVT4; ++c)
                    if (!DEC_DV_PADDED || dv0 + 4 * c < DV) o_acc[c] = mad((float4)(pj), vload_half4(c, vrow), o_acc[c]);
            }

            /* (m, l) over the work-group by a fixed tree, as the one-group kernel does. */
            red_m[lid] = m;
            red_l[lid] = l;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s2 = DEC_WG_SIZE / 2; s2 > 0; s2 >>= 1) {
                if (lid < s2) {
                    float mm, ll;
                    merge_ml(red_m[lid], red_l[lid], red_m[lid + s2], red_l[lid + s2], &mm, &ll);
                    red_m[lid] = mm;
                    red_l[lid] = ll;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            M = red_m[0];
            L = red_l[0];
            /* Unnormalised share, relative to the split's max: the combine divides. */
            const float f = m == -INFINITY ? 0.0f : exp(m - M);

#pragma unroll
            for (int cc = 0; cc < DEC_DVT; cc += DEC_RC) {
#pragma unroll
                for (int t = 0; t < DEC_RC; t += 4) {
                    const float4 x = o_acc[(cc + t) / 4] * f;
                    __local float* r = red_o + lid * (DEC_RC + 1) + t;
                    r[0] = x.x;
                    r[1] = x.y;
                    r[2] = x.z;
                    r[3] = x.w;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                {
                    const int c = lid % DEC_RC, g = lid / DEC_RC;
                    float sum = 0.0f;
                    for (int t = 0; t < DEC_RC; ++t) sum += red_o[(g * DEC_RC + t) * (DEC_RC + 1) + c];
                    red_p[lid] = sum;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid < DEC_RC) {
                    float sum = 0.0f;
                    for (int g = 0; g < DEC_WG_SIZE / DEC_RC; ++g) sum += red_p[g * DEC_RC + lid];
                    if (!DEC_DV_PADDED || dv0 + cc + lid < DV) part[dv0 + cc + lid] = sum;
                }
            }
        }
        if (lid == 0) {
            part[DV] = M;      /* -inf: the row attends no key of this split */
            part[DV + 1] = L;
        }
    }
}

#if DEC_SPLIT_MODE == 2
/* x added to *addr by compare-and-swap on the bits. */
inline void atomic_add_float(volatile __global float* addr, float x) {
    volatile __global int* bits = (volatile __global int*)addr;
    int seen = *bits, assumed;
    do {
        assumed = seen;
        seen = atomic_cmpxchg(bits, assumed, as_int(as_float(assumed) + x));
    } while (seen != assumed);
}

inline float atomic_read_float(volatile __global float* addr) {
    return as_float(atomic_or((volatile __global int*)addr, 0));
}
#endif

__kernel __attribute__((reqd_work_group_size(DEC_WG_SIZE, 1, 1)))
void flash_attn_f32_f16_q1_combine(__global const float* q, __global const half* k, __global const half* v,
                                   __global const half* mask, __global const float* sinks,
                                   __global float* o, __global float* ws, const attn_params p) {
    const int lid = get_local_id(0);
    const int h = get_group_id(1);
    const int b = get_group_id(2);
    const int ns = dec_num_splits(p);
#if DEC_SPLIT_MODE == 2
    __local int last;
    const int s = get_group_id(0);
    for (int i = 0; i < p.Nq; ++i) {
        __global float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;
        __global float* acc = dec_acc(ws, p, b, h, i);
        const __global float* part = dec_part(ws, p, b, h, i, s);
        /* Every work-group finds the same global max, in split order. */
        float M = p.has_sinks ? sinks[h] : -INFINITY;
        for (int t = 0; t < ns; ++t) M = fmax(M, dec_part(ws, p, b, h, i, t)[DV]);
        const float ms = part[DV];
        const float c = ms == -INFINITY ? 0.0f : exp(ms - M);
        if (c > 0.0f) {
            for (int d = lid; d < DV; d += DEC_WG_SIZE) atomic_add_float(acc + d, part[d] * c);
            if (lid == 0) atomic_add_float(acc + DV, part[DV + 1] * c);
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            last = atomic_inc((volatile __global int*)(acc + DV + 1)) == ns - 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (last) {
            const float l = atomic_read_float(acc + DV) + (p.has_sinks ? exp(sinks[h] - M) : 0.0f);
            for (int d = lid; d < DV; d += DEC_WG_SIZE) orow[d] = l > 0.0f ? atomic_read_float(acc + d) / l : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* `last` is reused by the next row */
    }
#else
    for (int i = 0; i < p.Nq; ++i) {
        __global float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;
        for (int d = lid; d < DV; d += DEC_WG_SIZE) {
            /* Splits merged in split order: a fixed sequence of roundings. */
            float m = -INFINITY, l = 0.0f, acc = 0.0f;
            for (int s = 0; s < ns; ++s) {
                const __global float* part = dec_part(ws, p, b, h, i, s);
                const float ms = part[DV];
                if (ms == -INFINITY) continue;  /* nothing attended there */
                const float mx = fmax(m, ms);
                const float ca = exp(m - mx), cb = exp(ms - mx);
                l = l * ca + part[DV + 1] * cb;
                acc = acc * ca + part[d] * cb;
                m = mx;
            }
            if (p.has_sinks) {
                const float sink = sinks[h];
                const float mx = fmax(m, sink);
                const float ca = exp(m - mx);
                l = l * ca + exp(sink - mx);
                acc *= ca;
            }
            orow[d] = l > 0.0f ? acc / l : 0.0f;
        }
    }
#endif
}

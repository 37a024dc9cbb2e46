/* Split-KV single-query decode over a paged K/V cache (fp16 / bf16), the
 * serving engines' decode: K and V live in a pool of pages
 * [num_pages][page_size][Hkv][D] and sequence b's key j is in page
 * block_table[b][j / page_size] (common/attn_params.h). Each sequence has
 * its own cache length (cu_seqlens_k); q and o may be bhsd, bshd or thd.
 *
 * Arguments: q, k, v, mask, sinks, o, cu_seqlens_q, cu_seqlens_k,
 * block_table, ws, p. Launches (same arguments), NS = ceil_div(Nkv, SPLIT_KEYS):
 *   paged_decode_split    grid [NS, Hkv, B], block [THREADS]
 *   paged_decode_combine  grid [Hq, B], block [HEAD_DIM / 4 rounded up to 32]
 * Workspace (floats): [B][Hq][NS][HEAD_DIM + 2] (unnormalised o, max, sum in
 * the log2 domain): workspace_bytes = 4 * B * Hq * ceil_div(Nkv, SPLIT_KEYS) * (D + 2).
 *
 * A block is one split (SPLIT_KEYS keys, whole pages) of one KV head of one
 * sequence, and computes all the KV head's query heads (MAX_QPK per pass) so
 * that K and V are read from memory once. ROW_THREADS lanes share a key row
 * (16 bytes each per load); a warp takes 32 / ROW_THREADS rows per step and
 * loads UNROLL steps of rows (block table lookups included) before computing
 * them. Splits have fixed keys and merge in split order, warps and lanes in
 * fixed trees: deterministic, batch-invariant, and a sequence's result does
 * not depend on the others' lengths.
 *
 * PAGED_MMA selects the split pass: 0 = CUDA cores (fp32 FMAs, above);
 * 1 = tensor cores, decode_ring.cuh's ring_pass (the contiguous decode
 * kernel's DEC_MMA 2 pass): each warp streams stages of UNROLL x 16 keys (with
 * pages of 16 keys: UNROLL pages per stage) through a STAGES-deep cp.async
 * ring in dynamic shared memory (THREADS / 32 * STAGES * UNROLL * 64 * D_S
 * bytes, D_S = D rounded up to 64, 128 or 256), one block-table lookup per
 * 16-key group (page_size must be a multiple of 16, so a group lies in one
 * page), and the packed query heads are the mma N dimension (8 per n-tile;
 * MAX_QPK 16: two n-tiles). ROW_THREADS is not used there.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "common/attn_params.h"
#include "cuda/ptx/math.cuh"

#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef DTYPE
#define DTYPE 1 /* 1 = fp16, 2 = bf16 */
#endif
#ifndef SPLIT_KEYS
#define SPLIT_KEYS 512
#endif
#ifndef THREADS
#define THREADS 128
#endif
#ifndef ROW_THREADS
#define ROW_THREADS 16
#endif
#ifndef UNROLL
#define UNROLL 2
#endif
#ifndef MAX_QPK
#define MAX_QPK 4
#endif
#ifndef PAGED_MMA
#define PAGED_MMA 0
#endif
#ifndef STAGES
#define STAGES 3 /* PAGED_MMA 1: ring stages per warp */
#endif

#if DTYPE != 1 && DTYPE != 2
#error "paged_decode: DTYPE must be 1 (fp16) or 2 (bf16)"
#endif
#if PAGED_MMA != 0 && PAGED_MMA != 1
#error "paged_decode: PAGED_MMA must be 0 or 1"
#endif
#if PAGED_MMA == 0 && (HEAD_DIM / ROW_THREADS) % 8 != 0
#error "paged_decode: HEAD_DIM / ROW_THREADS must be a multiple of 8 (16-byte loads)"
#endif
#if PAGED_MMA == 1 && (HEAD_DIM % 8 != 0 || HEAD_DIM > 256 || UNROLL < 1 || UNROLL > 4 || STAGES < 2 || STAGES > 8 || \
                       SPLIT_KEYS % 16 != 0 || (MAX_QPK != 8 && MAX_QPK != 16))
#error "paged_decode: PAGED_MMA 1 takes HEAD_DIM % 8 == 0 up to 256, UNROLL 1..4, STAGES 2..8, SPLIT_KEYS % 16 == 0, MAX_QPK 8 or 16"
#endif
#if THREADS % 32 != 0
#error "paged_decode: THREADS must be a multiple of 32"
#endif

#if DTYPE == 1
typedef __half elem_t;
typedef __half2 elem2_t;
__device__ __forceinline__ float2 to_float2(elem2_t x) { return __half22float2(x); }
__device__ __forceinline__ elem_t from_float(float x) { return __float2half_rn(x); }
__device__ __forceinline__ float to_float(elem_t x) { return __half2float(x); }
#else
typedef __nv_bfloat16 elem_t;
typedef __nv_bfloat162 elem2_t;
__device__ __forceinline__ float2 to_float2(elem2_t x) { return __bfloat1622float2(x); }
__device__ __forceinline__ elem_t from_float(float x) { return __float2bfloat16_rn(x); }
__device__ __forceinline__ float to_float(elem_t x) { return __bfloat162float(x); }
#endif

#define PD_NEG_INF (__int_as_float(0xff800000)) /* NVRTC has no math.h INFINITY */

#if PAGED_MMA
#define PD_BOUNDS __launch_bounds__(THREADS, 1) /* without the 1, ptxas holds the ring pass to 128 registers and spills */
#else
#define PD_BOUNDS __launch_bounds__(THREADS)
#endif
#if PAGED_MMA
#define DEC_THREADS THREADS
#define DEC_UNROLL UNROLL
#define DEC_STAGES STAGES
#include "cuda/decode_ring.cuh"
#endif

namespace pd {

[[maybe_unused]] constexpr int kWarps = THREADS / 32;   /* PAGED_MMA 0 */
[[maybe_unused]] constexpr int kRowsPerWarp = 32 / ROW_THREADS; /* rows a warp takes per step */
[[maybe_unused]] constexpr int kElems = HEAD_DIM / ROW_THREADS; /* elements of a row per lane */
[[maybe_unused]] constexpr int kVecs = kElems / 8;      /* 16-byte loads per row per lane */
constexpr int kPart = HEAD_DIM + 2;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ int max_splits(const attn_params& p) { return (p.Nkv + SPLIT_KEYS - 1) / SPLIT_KEYS; }

__device__ __forceinline__ float* part_of(float* ws, const attn_params& p, int b, int h, int s) {
    return ws + (((long long)b * p.Hq + h) * max_splits(p) + s) * kPart;
}

__device__ __forceinline__ float alibi_slope(const attn_params& p, int h) {
    if (p.max_bias <= 0.f) return 0.f;
    return h < p.n_head_log2 ? powf(p.m0, (float)(h + 1)) : powf(p.m1, (float)(2 * (h - p.n_head_log2) + 1));
}

__device__ __forceinline__ long long q_start(const attn_params& p, const int* cu_q, int b) {
    return p.layout == 2 ? (long long)cu_q[b] * p.stride_q_n : (long long)b * p.stride_q_b;
}

/* 8 elements of a 16-byte vector, widened */
__device__ __forceinline__ void widen8(uint4 raw, float* out) {
    const elem2_t* e = reinterpret_cast<const elem2_t*>(&raw);
#pragma unroll
    for (int t = 0; t < 4; ++t) {
        const float2 f = to_float2(e[t]);
        out[2 * t] = f.x;
        out[2 * t + 1] = f.y;
    }
}

/* (m, l) and the o of one softmax merged into another's, in the log2 domain */
__device__ __forceinline__ void merge_into(float& m, float& l, float* acc, float m2, float l2, const float* acc2, int n) {
    const float mx = fmaxf(m, m2);
    if (mx == PD_NEG_INF) return;
    const float a = ptx::ex2(m - mx), c = ptx::ex2(m2 - mx);
    l = l * a + l2 * c;
    for (int d = 0; d < n; ++d) acc[d] = acc[d] * a + acc2[d] * c;
    m = mx;
}

#if PAGED_MMA
/* PAGED_MMA 1: rows through the block table; the partials go to part_of(b, head, split) */
struct PagedKv {
    static constexpr int kAlign = 16; /* a 16-key group lies in one page */
    static constexpr bool kLookup = true;
    const elem_t* k;
    const elem_t* v;                  /* the pools, offset to this KV head */
    const int* table;                 /* sequence b's block table row */
    int page_size, stride_page, stride_n;
    const elem_t* q;                  /* sequence b's query row, head 0 */
    long long stride_q_h;
    float* part;                      /* (b, head 0, split) */
    long long part_h;                 /* floats between heads' partials */
    __device__ __forceinline__ int ref(int key) const { return __ldg(table + key / page_size); }
    __device__ __forceinline__ long long row_in(int page, int key) const {
        return (long long)page * stride_page + (long long)(key % page_size) * stride_n;
    }
    __device__ __forceinline__ long long row(int key) const { return row_in(ref(key), key); }
    __device__ __forceinline__ int row_stride() const { return stride_n; }
    __device__ __forceinline__ const elem_t* q_head(int h) const { return q + h * stride_q_h; }
    __device__ __forceinline__ float* out_o(int h) const { return part + h * part_h; }
    __device__ __forceinline__ float* out_ml(int h) const { return part + h * part_h + HEAD_DIM; }
};

__device__ __forceinline__ void ring_split(const elem_t* __restrict__ q, const elem_t* __restrict__ k,
                                           const elem_t* __restrict__ v, const __half* __restrict__ mask,
                                           const int* __restrict__ cu_seqlens_q, const int* __restrict__ cu_seqlens_k,
                                           const int* __restrict__ block_table, float* __restrict__ ws,
                                           const attn_params& p) {
    extern __shared__ __align__(128) unsigned char ring_smem[]; /* DEC_RING_BYTES: the warps' rings */
    const int split = blockIdx.x, hkv = blockIdx.y, b = blockIdx.z;
    const int nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
    if (split * SPLIT_KEYS >= nk) return; /* past this sequence: the combine reads no such split */
    const int pos = nk - 1;               /* the query is the sequence's last position */
    int first = split * SPLIT_KEYS, end = min(nk, first + SPLIT_KEYS);
    if (p.causal) end = min(end, pos + 1);
    if (p.window > 0) {
        first = max(first, pos - p.window);
        end = min(end, pos + p.window + 1);
    }
    const long long head_off = (long long)hkv * p.stride_k_h;
    const PagedKv kv{k + head_off, v + head_off, block_table + (long long)b * p.max_pages, p.page_size,
                     p.stride_k_page, p.stride_k_n, q + q_start(p, cu_seqlens_q, b), p.stride_q_h,
                     part_of(ws, p, b, 0, split), (long long)max_splits(p) * kPart};
    const __half* mask_row = mask + (long long)b * p.Nkv; /* [B][Nq = 1][Nkv] */
    const int hq_begin = hkv * p.q_per_kv, hq_end = hq_begin + p.q_per_kv;
    for (int h0 = hq_begin; h0 < hq_end; h0 += MAX_QPK) {
        if (MAX_QPK == 16 && hq_end - h0 > 8)
            decring::ring_pass<MAX_QPK / 8>(kv, mask_row, p, pos, h0, hq_end, first, end, ring_smem);
        else
            decring::ring_pass<1>(kv, mask_row, p, pos, h0, hq_end, first, end, ring_smem);
    }
}
#endif

}  // namespace pd

extern "C" __global__ void PD_BOUNDS
paged_decode_split(const elem_t* __restrict__ q, const elem_t* __restrict__ k, const elem_t* __restrict__ v,
                   const __half* __restrict__ mask, const float* __restrict__ sinks, elem_t* __restrict__ o,
                   const int* __restrict__ cu_seqlens_q, const int* __restrict__ cu_seqlens_k,
                   const int* __restrict__ block_table, float* __restrict__ ws, attn_params p) {
    using namespace pd;
    (void)sinks;
    (void)o;
#if PAGED_MMA
    ring_split(q, k, v, mask, cu_seqlens_q, cu_seqlens_k, block_table, ws, p);
#else
    __shared__ float red[kWarps][MAX_QPK][HEAD_DIM + 2];

    const int split = blockIdx.x, hkv = blockIdx.y, b = blockIdx.z;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = lane / ROW_THREADS, sub = lane % ROW_THREADS;
    const int nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
    const int pos = nk - 1; /* the query is the sequence's last position */
    int first = split * SPLIT_KEYS, end = min(nk, first + SPLIT_KEYS);
    if (p.causal) end = min(end, pos + 1);
    if (p.window > 0) {
        first = max(first, pos - p.window);
        end = min(end, pos + p.window + 1);
    }
    const int* table = block_table + (long long)b * p.max_pages;
    const __half* mask_row = mask + (long long)b * p.Nkv; /* [B][Nq = 1][Nkv] */
    const long long head_off = (long long)hkv * p.stride_k_h + sub * kElems;

    for (int h0 = hkv * p.q_per_kv; h0 < (hkv + 1) * p.q_per_kv; h0 += MAX_QPK) {
        const int nh = min(MAX_QPK, (hkv + 1) * p.q_per_kv - h0);
        float qf[MAX_QPK][kElems], acc[MAX_QPK][kElems], m[MAX_QPK], l[MAX_QPK], slope[MAX_QPK];
#pragma unroll
        for (int hh = 0; hh < MAX_QPK; ++hh) {
            m[hh] = PD_NEG_INF;
            l[hh] = 0.f;
            slope[hh] = hh < nh ? alibi_slope(p, h0 + hh) * kLog2e : 0.f;
            const elem_t* qr = q + q_start(p, cu_seqlens_q, b) + (long long)(h0 + min(hh, nh - 1)) * p.stride_q_h + sub * kElems;
#pragma unroll
            for (int e = 0; e < kElems; ++e) {
                qf[hh][e] = to_float(qr[e]) * p.scale * kLog2e;
                acc[hh][e] = 0.f;
            }
        }

        /* rows j = split start + step * (warps * rows per warp) + warp * rows per warp + group; the
         * loop bound is the warp's (its lanes all shuffle), each row checks its own */
        const int stride = kWarps * kRowsPerWarp;
        for (int wbase = split * SPLIT_KEYS + warp * kRowsPerWarp; wbase < end; wbase += UNROLL * stride) {
            const int base = wbase + group;
            uint4 kr[UNROLL][kVecs], vr[UNROLL][kVecs];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int j = base + u * stride;
                if (j < end) {
                    const long long row = (long long)table[j / p.page_size] * p.stride_k_page +
                                          (long long)(j % p.page_size) * p.stride_k_n + head_off;
#pragma unroll
                    for (int c = 0; c < kVecs; ++c) {
                        kr[u][c] = *reinterpret_cast<const uint4*>(k + row + 8 * c);
                        vr[u][c] = *reinterpret_cast<const uint4*>(v + row + 8 * c);
                    }
                } else {
#pragma unroll
                    for (int c = 0; c < kVecs; ++c) kr[u][c] = vr[u][c] = make_uint4(0, 0, 0, 0);
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int j = base + u * stride;
                float kf[kElems], vf[kElems];
#pragma unroll
                for (int c = 0; c < kVecs; ++c) {
                    widen8(kr[u][c], kf + 8 * c);
                    widen8(vr[u][c], vf + 8 * c);
                }
                const bool valid = j >= first && j < end;
                const float add = valid && p.has_mask ? __half2float(mask_row[j]) * kLog2e : 0.f;
#pragma unroll
                for (int hh = 0; hh < MAX_QPK; ++hh) {
                    float dot = 0.f;
#pragma unroll
                    for (int e = 0; e < kElems; ++e) dot = fmaf(qf[hh][e], kf[e], dot);
                    dot = ptx::lanes_sum<ROW_THREADS>(dot, 0xffffffffu);
                    const float s = dot + add - slope[hh] * (float)abs(pos - j);
                    if (!valid || hh >= nh || !(s > PD_NEG_INF)) continue;
                    if (s > m[hh]) {
                        const float corr = ptx::ex2(m[hh] - s);
                        l[hh] *= corr;
#pragma unroll
                        for (int e = 0; e < kElems; ++e) acc[hh][e] *= corr;
                        m[hh] = s;
                    }
                    const float pj = ptx::ex2(s - m[hh]);
                    l[hh] += pj;
#pragma unroll
                    for (int e = 0; e < kElems; ++e) acc[hh][e] = fmaf(pj, vf[e], acc[hh][e]);
                }
            }
        }

        /* the warp's row groups merged by a fixed butterfly, then the warps in warp order */
#pragma unroll
        for (int hh = 0; hh < MAX_QPK; ++hh) {
#pragma unroll
            for (int off = ROW_THREADS; off < 32; off <<= 1) {
                const float m2 = __shfl_xor_sync(0xffffffffu, m[hh], off);
                const float l2 = __shfl_xor_sync(0xffffffffu, l[hh], off);
                float acc2[kElems];
#pragma unroll
                for (int e = 0; e < kElems; ++e) acc2[e] = __shfl_xor_sync(0xffffffffu, acc[hh][e], off);
                /* both partners compute the same merge: lower group first, whoever runs it */
                if (group & (off / ROW_THREADS)) {
                    float mm = m2, ll = l2, aa[kElems];
#pragma unroll
                    for (int e = 0; e < kElems; ++e) aa[e] = acc2[e];
                    merge_into(mm, ll, aa, m[hh], l[hh], acc[hh], kElems);
                    m[hh] = mm;
                    l[hh] = ll;
#pragma unroll
                    for (int e = 0; e < kElems; ++e) acc[hh][e] = aa[e];
                } else {
                    merge_into(m[hh], l[hh], acc[hh], m2, l2, acc2, kElems);
                }
            }
            if (group == 0) {
#pragma unroll
                for (int e = 0; e < kElems; ++e) red[warp][hh][sub * kElems + e] = acc[hh][e];
                if (sub == 0) {
                    red[warp][hh][HEAD_DIM] = m[hh];
                    red[warp][hh][HEAD_DIM + 1] = l[hh];
                }
            }
        }
        __syncthreads();
        for (int i = threadIdx.x; i < nh * HEAD_DIM; i += THREADS) {
            const int hh = i / HEAD_DIM, d = i % HEAD_DIM;
            float mm = PD_NEG_INF, ll = 0.f, a = 0.f;
            for (int w = 0; w < kWarps; ++w) merge_into(mm, ll, &a, red[w][hh][HEAD_DIM], red[w][hh][HEAD_DIM + 1], &red[w][hh][d], 1);
            float* part = part_of(ws, p, b, h0 + hh, split);
            part[d] = a;
            if (d == 0) {
                part[HEAD_DIM] = mm; /* -inf: no key of this split attended */
                part[HEAD_DIM + 1] = ll;
            }
        }
        __syncthreads();
    }
#endif
}

extern "C" __global__ void paged_decode_combine(const elem_t* __restrict__ q, const elem_t* __restrict__ k,
                                                const elem_t* __restrict__ v, const __half* __restrict__ mask,
                                                const float* __restrict__ sinks, elem_t* __restrict__ o,
                                                const int* __restrict__ cu_seqlens_q, const int* __restrict__ cu_seqlens_k,
                                                const int* __restrict__ block_table, float* __restrict__ ws, attn_params p) {
    using namespace pd;
    const int h = blockIdx.x, b = blockIdx.y;
    const int nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
    const int ns = (nk + SPLIT_KEYS - 1) / SPLIT_KEYS;
    elem_t* orow = o + q_start(p, cu_seqlens_q, b) + (long long)h * p.stride_q_h;
    for (int d = threadIdx.x; d < HEAD_DIM; d += blockDim.x) {
        float m = PD_NEG_INF, l = 0.f, acc = 0.f;
        for (int s = 0; s < ns; ++s) { /* split order: a fixed sequence of roundings */
            const float* part = part_of(ws, p, b, h, s);
            merge_into(m, l, &acc, part[HEAD_DIM], part[HEAD_DIM + 1], part + d, 1);
        }
        if (p.has_sinks) {
            const float sink = sinks[h] * kLog2e;
            const float zero = 0.f;
            merge_into(m, l, &acc, sink, 1.f, &zero, 1);
        }
        orow[d] = from_float(l > 0.f ? acc / l : 0.f);
    }
}

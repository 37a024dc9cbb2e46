/* Flash attention, Q/O float, K/V half: a CUDA port of the OpenCL kernel
 * (kernels/opencl/flash_attn_f32_f16.cl, llama.cpp's flash_attn_f32_f16.cl
 * design), so that the same algorithm can be tuned through CUDA and OpenCL on
 * one GPU and the two bests compared. Entries: prefill `flash_attn_f32_f16` and
 * single-query decode `flash_attn_f32_f16_q1`. Contract: common/attn_params.h.
 *
 * This is a port, not a new design: same tunables (BLOCK_M, BLOCK_N, DV_TILE,
 * DEC_WG_SIZE, DEC_DV_TILE, DEC_RED_COLS) with the same #ifndef defaults, the
 * same launch geometry, the same static shared-memory staging (K and this
 * pass's V columns as float), the same DV tiling, the same per-key online
 * softmax and the same fixed-order decode reduction. OpenCL -> CUDA mapping:
 *   __local -> __shared__ (static), barrier(CLK_LOCAL_MEM_FENCE) -> __syncthreads(),
 *   reqd_work_group_size(X,1,1) -> __launch_bounds__(X), mad -> fmaf, exp -> expf
 *   (accurate: neither version builds with fast math), vload_half4 -> one 8-byte
 *   load of 4 halves, vload4 -> one 16-byte float4 load, pown -> a multiply loop.
 * Pointers carry no __restrict__, as the OpenCL arguments carry no restrict.
 * Not ported (yet): the split-KV decode kernels (DEC_SPLIT_MODE) that are being
 * added to the OpenCL file.
 *
 * Prefill launch: grid [ceil_div(Nq, BLOCK_M), Hq, B], block [BLOCK_M].
 * Decode launch:  grid [Hq, B], block [DEC_WG_SIZE]. No workspace.
 * Shared memory is static: 4*BLOCK_N*(DK + DV_TILE) bytes for prefill (the
 * specs' constraint keeps it <= 48 KiB, CUDA's limit for static shared memory),
 * 4*(DK + DEC_WG_SIZE*(DEC_RC + 4)) for decode.
 *
 * Resources on sm_90, read from `attn-tune compile configs/flash_attn_f32_f16_cuda.json
 * --arch sm_90` and `... _cuda_small.json` (NVRTC 13.0): 180 + 27 configurations
 * compile, none fails. Registers depend only on the tile that sizes the
 * accumulator (not on BLOCK_M / BLOCK_N; shared memory is 4*BLOCK_N*(DK+DV_TILE)).
 * "spill" = spill store / load bytes per thread (stack frame in brackets).
 *   prefill   D=128  DV_TILE=16 (H): 237 regs, 0 spill DV_TILE=32 (A,C,E): 247, 0
 *                    DV_TILE=64 (B,D,F): 255, 0        DV_TILE=128 (G + 7 more): 255, 196/304 [160 B]
 *             D=64   DV_TILE=16 (H): 159, 0  32: 165, 0  64: 210-212, 0
 *   decode    D=128  DEC_DV_TILE=0: 168 regs (224 at DEC_WG_SIZE=256), 16: 56-64, 32: 72-76, 64: 128; 0 spill
 *             D=64   DEC_DV_TILE=0: 127, 32: 64-72; 0 spill
 * Only DV_TILE = DV = 128 spills (q's 128 floats + a 128-float accumulator),
 * the case the OpenCL kernel's DV tiling exists to avoid. __launch_bounds__(BLOCK_M)
 * lets ptxas take up to 255 registers, so prefill occupancy is register-bound
 * (at most 12% of the SM's threads at D = 128).
 */
#include <cuda_fp16.h>
#include "common/attn_params.h"

/* ---- compile-time shape and tunables ---------------------------------- */

#ifndef DK
#define DK 128
#endif
#ifndef DV
#define DV DK
#endif

/* Query rows per block, one per thread. More rows share each staged K/V tile
 * (less global traffic per row) but leave fewer blocks. */
#ifndef BLOCK_M
#define BLOCK_M 32
#endif
/* KV rows staged in shared memory per step: 4*BLOCK_N*(DK + DV_TILE) bytes,
 * two barriers per step. */
#ifndef BLOCK_N
#define BLOCK_N 32
#endif
/* Output columns per pass. The per-thread accumulator is DV_TILE floats on
 * top of the DK floats of q; DV/DV_TILE passes each re-walk all of K and V.
 * Small tiles avoid register spills, large ones avoid the re-walks. */
#ifndef DV_TILE
#if DV < 32
#define DV_TILE DV
#else
#define DV_TILE 32
#endif
#endif

/* Decode: threads per (head, sequence); each owns the keys lid, lid+WG, ... */
#ifndef DEC_WG_SIZE
#define DEC_WG_SIZE 64
#endif
/* Decode output columns per pass; 0 = all of DV in one pass (no K re-walk). */
#ifndef DEC_DV_TILE
#define DEC_DV_TILE 0
#endif
/* Columns combined per step of the decode reduction: its shared memory stays
 * 4*(DEC_WG_SIZE*(DEC_RED_COLS+4) + DK) bytes whatever DEC_DV_TILE is. */
#ifndef DEC_RED_COLS
#define DEC_RED_COLS 16
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
/* A DV tile that does not divide DV: the last pass is padded, its columns from
 * DV on are loaded as zeros and never stored (as in the OpenCL original). */
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
#if BLOCK_M > 1024 || DEC_WG_SIZE > 1024
#error "BLOCK_M and DEC_WG_SIZE are threads per block: at most 1024"
#endif

/* ---- helpers ---------------------------------------------------------- */

#define FA_INF __int_as_float(0x7f800000)

/* OpenCL's float4 arithmetic, spelled out. */
static __device__ __forceinline__ float4 f4(float x) { return make_float4(x, x, x, x); }
static __device__ __forceinline__ float4 f4_scale(float4 a, float s) {
    return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}
/* mad(a, b, c) per component. */
static __device__ __forceinline__ float4 f4_mad(float4 a, float4 b, float4 c) {
    return make_float4(fmaf(a.x, b.x, c.x), fmaf(a.y, b.y, c.y), fmaf(a.z, b.z, c.z), fmaf(a.w, b.w, c.w));
}

/* vload4(c, p): 16-byte load of floats 4c .. 4c+3. */
static __device__ __forceinline__ float4 vload4(int c, const float* p) {
    return reinterpret_cast<const float4*>(p)[c];
}
/* vload_half4(c, p): one 8-byte load of halves 4c .. 4c+3, widened to float. */
static __device__ __forceinline__ float4 vload_half4(int c, const __half* p) {
    const uint2 u = reinterpret_cast<const uint2*>(p)[c];
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&u.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&u.y));
    return make_float4(a.x, a.y, b.x, b.y);
}
/* vload_half(j, p). */
static __device__ __forceinline__ float vload_half(int j, const __half* p) { return __half2float(p[j]); }

/* pown(x, n) for n >= 1, as the OpenCL built-in (exact for the small n of ALiBi). */
static __device__ __forceinline__ float pown_f(float x, int n) {
    float r = 1.0f;
    for (int i = 0; i < n; ++i) r *= x;
    return r;
}

/* llama.cpp's ALiBi slope, from the float bases the host computed. */
static __device__ __forceinline__ float alibi_slope(const attn_params& p, int h) {
    if (p.max_bias <= 0.0f) return 0.0f;
    return h < p.n_head_log2 ? pown_f(p.m0, h + 1) : pown_f(p.m1, 2 * (h - p.n_head_log2) + 1);
}

/* Keys [*lo, *hi) that causal and window leave to the query at position pos. */
static __device__ __forceinline__ void key_range(const attn_params& p, int pos, int* lo, int* hi) {
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

extern "C" __global__ void __launch_bounds__(BLOCK_M)
flash_attn_f32_f16(const float* q, const __half* k, const __half* v, const __half* mask, const float* sinks,
                   float* o, float* ws, const attn_params p) {
    (void)ws;
    const int lid = threadIdx.x;
    const int row0 = blockIdx.x * BLOCK_M;
    const int h = blockIdx.y;
    const int b = blockIdx.z;
    const int hk = h / p.q_per_kv;
    const int i = row0 + lid;
    const bool active = i < p.Nq; /* tail rows only help stage tiles */

    /* K is staged as float: converted once per tile instead of once per row
     * that reads it, at twice the shared memory of half. V holds only this
     * pass's columns. */
    __shared__ float4 Ks[BLOCK_N * DK4];
    __shared__ float4 Vs[BLOCK_N * DVT4];

    /* Keys any row of this block attends (uniform, so barriers stay legal):
     * causal and window skip whole tiles rather than masking them. */
    const int last = min(row0 + BLOCK_M, p.Nq) - 1;
    int kv_lo, kv_hi, lo_last, hi_first;
    key_range(p, p.kv_offset + row0, &kv_lo, &hi_first);
    key_range(p, p.kv_offset + last, &lo_last, &kv_hi);

    const int pos = p.kv_offset + i;
    int lo, hi;
    key_range(p, pos, &lo, &hi);
    if (!active) hi = lo;

    /* q stays in registers for every pass: DK floats per thread, the fixed
     * part of the register pressure that the OpenCL kernel's DV tiling works around. */
    float4 q_priv[DK4];
    const float* qrow = q + (((size_t)b * p.Hq + h) * p.Nq + (active ? i : 0)) * DK;
#pragma unroll
    for (int c = 0; c < DK4; ++c) q_priv[c] = f4_scale(vload4(c, qrow), p.scale);

    const float slope = alibi_slope(p, h);
    const float sink = p.has_sinks ? sinks[h] : -FA_INF;
    const __half* mrow = mask + ((size_t)b * p.Nq + (active ? i : 0)) * p.Nkv;
    const __half* kbase = k + ((size_t)b * p.Hkv + hk) * p.Nkv * DK;
    const __half* vbase = v + ((size_t)b * p.Hkv + hk) * p.Nkv * DV;
    float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;

    for (int dv0 = 0; dv0 < DV; dv0 += DV_TILE) {
        /* The sink starts the running max and contributes exp(sink - m) = 1. */
        float m = sink;
        float l = p.has_sinks ? 1.0f : 0.0f;
        float4 o_acc[DVT4];
#pragma unroll
        for (int c = 0; c < DVT4; ++c) o_acc[c] = f4(0.0f);

        for (int j0 = kv_lo; j0 < kv_hi; j0 += BLOCK_N) {
            for (int idx = lid; idx < BLOCK_N * DK4; idx += BLOCK_M) {
                const int j = j0 + idx / DK4;
                Ks[idx] = j < kv_hi ? vload_half4(0, kbase + (size_t)j * DK + 4 * (idx % DK4)) : f4(0.0f);
            }
            for (int idx = lid; idx < BLOCK_N * DVT4; idx += BLOCK_M) {
                const int j = j0 + idx / DVT4;
                Vs[idx] = j < kv_hi && (!DV_PADDED || dv0 + 4 * (idx % DVT4) < DV)
                              ? vload_half4(0, vbase + (size_t)j * DV + dv0 + 4 * (idx % DVT4)) : f4(0.0f);
            }
            __syncthreads();

            const int ja = max(lo - j0, 0), jb = min(hi - j0, BLOCK_N);
            for (int jj = ja; jj < jb; ++jj) {
                const int j = j0 + jj;
                /* Every thread reads the same Ks row: a shared-memory broadcast. */
                float4 acc = f4(0.0f);
#pragma unroll
                for (int c = 0; c < DK4; ++c) acc = f4_mad(q_priv[c], Ks[jj * DK4 + c], acc);
                float s = (acc.x + acc.y) + (acc.z + acc.w);
                /* Mask rows are per thread (stride Nkv apart): each walks its
                 * own row sequentially, so cache lines are reused across jj. */
                if (p.has_mask) s += vload_half(j, mrow);
                s = fmaf(-slope, (float)abs(pos - j), s);
                if (!(s > -FA_INF)) continue; /* -inf mask entry: no weight, and no exp(-inf - -inf) */
                /* Online softmax one key at a time: no score array in registers or
                 * shared memory; the rescale runs only when the max grows. */
                if (s > m) {
                    const float corr = expf(m - s); /* m may be -inf: corr = 0 */
                    l *= corr;
#pragma unroll
                    for (int c = 0; c < DVT4; ++c) o_acc[c] = f4_scale(o_acc[c], corr);
                    m = s;
                }
                const float pj = expf(s - m);
                l += pj;
#pragma unroll
                for (int c = 0; c < DVT4; ++c) o_acc[c] = f4_mad(f4(pj), Vs[jj * DVT4 + c], o_acc[c]);
            }
            __syncthreads();
        }

        if (active) {
            const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
            for (int c = 0; c < DVT4; ++c)
                if (!DV_PADDED || dv0 + 4 * c < DV) reinterpret_cast<float4*>(orow + dv0)[c] = f4_scale(o_acc[c], inv);
        }
    }
}

/* ---- decode ----------------------------------------------------------- */

/* Partial softmax states (m, l) of two halves of the block, merged. */
static __device__ __forceinline__ void merge_ml(float ma, float la, float mb, float lb, float* m, float* l) {
    const float mx = fmaxf(ma, mb);
    *m = mx;
    *l = mx == -FA_INF ? 0.0f : la * expf(ma - mx) + lb * expf(mb - mx);
}

extern "C" __global__ void __launch_bounds__(DEC_WG_SIZE)
flash_attn_f32_f16_q1(const float* q, const __half* k, const __half* v, const __half* mask, const float* sinks,
                      float* o, float* ws, const attn_params p) {
    (void)ws;
    const int lid = threadIdx.x;
    const int h = blockIdx.x;
    const int b = blockIdx.y;
    const int hk = h / p.q_per_kv;

    /* q is the same for every thread: one copy in shared memory (broadcast
     * reads) leaves the registers to the DEC_DV_TILE accumulator. */
    __shared__ float4 q_l[DK4];
    __shared__ float red_m[DEC_WG_SIZE];
    __shared__ float red_l[DEC_WG_SIZE];
    /* +1 column: rows written by consecutive threads fall in distinct banks. */
    __shared__ float red_o[DEC_WG_SIZE * (DEC_RC + 1)];
    __shared__ float red_p[DEC_WG_SIZE];

    const float slope = alibi_slope(p, h);
    const __half* kbase = k + ((size_t)b * p.Hkv + hk) * p.Nkv * DK;
    const __half* vbase = v + ((size_t)b * p.Hkv + hk) * p.Nkv * DV;
    /* Thread 0 alone carries the sink, so it is counted once after the merge. */
    const bool own_sink = p.has_sinks && lid == 0;
    const float sink = own_sink ? sinks[h] : -FA_INF;

    /* Nq is 1 for decode; more rows are handled one after another (correct, slow). */
    for (int i = 0; i < p.Nq; ++i) {
        const float* qrow = q + (((size_t)b * p.Hq + h) * p.Nq + i) * DK;
        const __half* mrow = mask + ((size_t)b * p.Nq + i) * p.Nkv;
        float* orow = o + (((size_t)b * p.Hq + h) * p.Nq + i) * DV;
        const int pos = p.kv_offset + i;
        int lo, hi;
        key_range(p, pos, &lo, &hi);

        __syncthreads(); /* previous row is done reading q_l */
        for (int c = lid; c < DK4; c += DEC_WG_SIZE) q_l[c] = f4_scale(vload4(c, qrow), p.scale);
        __syncthreads();

        for (int dv0 = 0; dv0 < DV; dv0 += DEC_DVT) {
            float m = sink;
            float l = own_sink ? 1.0f : 0.0f;
            float4 o_acc[DEC_DVT4];
#pragma unroll
            for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] = f4(0.0f);

            /* Strided keys: balanced for any Nkv, and a warp's loads of one
             * chunk index touch DEC_WG_SIZE neighbouring rows. */
            for (int j = lo + lid; j < hi; j += DEC_WG_SIZE) {
                float s = p.has_mask ? vload_half(j, mrow) : 0.0f;
                if (!(s > -FA_INF)) continue; /* masked: skip the K/V reads too */
                const __half* krow = kbase + (size_t)j * DK;
                float4 acc = f4(0.0f);
#pragma unroll 8
                for (int c = 0; c < DK4; ++c) acc = f4_mad(q_l[c], vload_half4(c, krow), acc);
                s += (acc.x + acc.y) + (acc.z + acc.w);
                s = fmaf(-slope, (float)abs(pos - j), s);
                if (s > m) {
                    const float corr = expf(m - s);
                    l *= corr;
#pragma unroll
                    for (int c = 0; c < DEC_DVT4; ++c) o_acc[c] = f4_scale(o_acc[c], corr);
                    m = s;
                }
                const float pj = expf(s - m);
                l += pj;
                const __half* vrow = vbase + (size_t)j * DV + dv0;
#pragma unroll
                for (int c = 0; c < DEC_DVT4; ++c)
                    if (!DEC_DV_PADDED || dv0 + 4 * c < DV) o_acc[c] = f4_mad(f4(pj), vload_half4(c, vrow), o_acc[c]);
            }

            /* Merge (m, l) over the block: fixed tree, so deterministic.
             * Every pass gets the same (m, l); redoing it costs log2(WG) barriers. */
            red_m[lid] = m;
            red_l[lid] = l;
            __syncthreads();
            for (int s2 = DEC_WG_SIZE / 2; s2 > 0; s2 >>= 1) {
                if (lid < s2) {
                    float mm, ll;
                    merge_ml(red_m[lid], red_l[lid], red_m[lid + s2], red_l[lid + s2], &mm, &ll);
                    red_m[lid] = mm;
                    red_l[lid] = ll;
                }
                __syncthreads();
            }
            const float M = red_m[0], L = red_l[0];
            /* This thread's share of the output, already normalised. */
            const float f = (m == -FA_INF || !(L > 0.0f)) ? 0.0f : expf(m - M) / L;

            /* Sum the partial accumulators DEC_RC columns at a time: thread
             * (g, c) adds rows g*RC .. g*RC+RC-1 of column c, then RC threads
             * add the WG/RC group sums, both in a fixed order. */
#pragma unroll
            for (int cc = 0; cc < DEC_DVT; cc += DEC_RC) {
#pragma unroll
                for (int t = 0; t < DEC_RC; t += 4) {
                    const float4 x = f4_scale(o_acc[(cc + t) / 4], f);
                    float* r = red_o + lid * (DEC_RC + 1) + t;
                    r[0] = x.x;
                    r[1] = x.y;
                    r[2] = x.z;
                    r[3] = x.w;
                }
                __syncthreads();
                {
                    const int c = lid % DEC_RC, g = lid / DEC_RC;
                    float sum = 0.0f;
                    for (int t = 0; t < DEC_RC; ++t) sum += red_o[(g * DEC_RC + t) * (DEC_RC + 1) + c];
                    red_p[lid] = sum;
                }
                __syncthreads();
                if (lid < DEC_RC) {
                    float sum = 0.0f;
                    for (int g = 0; g < DEC_WG_SIZE / DEC_RC; ++g) sum += red_p[g * DEC_RC + lid];
                    if (!DEC_DV_PADDED || dv0 + cc + lid < DV) orow[dv0 + cc + lid] = sum;
                }
            }
        }
    }
}

/* deformable_attn: Deformable-DETR multi-scale deformable attention, forward,
 * fp32, for attn-tune. Contract: common/deformable_params.h.
 *
 * Work split: a block owns QPB * GROUPS consecutive queries (flattened over
 * images) and HPB heads (grid y = heads / HPB); it walks them in GROUPS passes
 * of QPB queries. A (query, head) pair is computed by CHANNELS / CPT consumer
 * threads, CPT channels each: per level and point they read the sample's four
 * corner weights and offsets, gather the four corner vectors and multiply-add.
 *
 * WARP_SPLIT = 0 (baseline, unspecialized): every thread computes its own
 *   samples' coordinates, bilinear weights and corner offsets (redundantly,
 *   CHANNELS / CPT times per sample) and gathers from global memory.
 * WARP_SPLIT = n > 0 (specialized): n producer warps compute each sample's
 *   coordinates and weights once, store them ("metadata": 4 offsets, 4 weights
 *   with the attention weight folded in) in a ring of STAGES shared-memory
 *   stages of one (pass, level) each, and with STAGE_VALUES stage the four
 *   corner vectors too (1: cp.async 16-byte copies, 2: the bulk copy engine,
 *   one 4*CHANNELS-byte copy per corner); consumer warps interpolate and
 *   accumulate. Full / empty mbarriers per stage order the two; copies complete
 *   on the full barrier.
 *
 * Launch (the spec): grid [ceil_div(B * Nq, QPB * GROUPS), heads / HPB],
 * block [32 * WARP_SPLIT + QPB * HPB * CHANNELS / CPT], dynamic shared memory
 * DF_SMEM_BYTES (below; the spec's "shared_bytes" is the same expression, and
 * the kernel traps when given less). NVRTC-clean: no includes but the contract.
 */
#include "common/deformable_params.h"
#include "cuda/ptx/cp_async.cuh"
#include "cuda/ptx/mbarrier.cuh"

/* ------------------------------------------------- shape (from the spec's defines) */
#ifndef NUM_HEADS
#define NUM_HEADS 8
#endif
#ifndef CHANNELS
#define CHANNELS 32
#endif
#ifndef NUM_LEVELS
#define NUM_LEVELS 4
#endif
#ifndef NUM_POINTS
#define NUM_POINTS 4
#endif

/* ------------------------------------------------------------------ tunables */
#ifndef WARP_SPLIT
#define WARP_SPLIT 0 /* producer warps; 0 = unspecialized */
#endif
#ifndef QPB
#define QPB 4 /* queries per pass */
#endif
#ifndef HPB
#define HPB NUM_HEADS /* heads per block */
#endif
#ifndef CPT
#define CPT 4 /* channels per consumer thread */
#endif
#ifndef GROUPS
#define GROUPS 4 /* passes per block: queries per block = QPB * GROUPS */
#endif
#ifndef STAGES
#define STAGES 2 /* pipeline depth: shared-memory stages of one (pass, level) */
#endif
#ifndef STAGE_VALUES
#define STAGE_VALUES 0 /* 0: consumers gather corners; 1: producers stage them by cp.async; 2: by bulk copies */
#endif
/* points whose four corners a thread gathers before it multiply-adds them: the
 * loads each thread keeps in flight (4 * CPT floats per point) */
#ifndef UNROLL_POINTS
#define UNROLL_POINTS 1
#endif
/* second argument of __launch_bounds__: blocks per SM the registers must allow
 * (the register cap is 65536 / (MIN_BLOCKS * threads)); more blocks, more gathers in flight */
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 4
#endif

/* ------------------------------------------------------- configuration checks */
#if NUM_LEVELS < 1 || NUM_LEVELS > DEFORMABLE_MAX_LEVELS
#error "deformable_attn: NUM_LEVELS must be 1 to DEFORMABLE_MAX_LEVELS"
#endif
#if CPT != 1 && CPT != 2 && CPT != 4 && CPT != 8
#error "deformable_attn: CPT must be 1, 2, 4 or 8"
#endif
#if CHANNELS % CPT != 0
#error "deformable_attn: CPT must divide CHANNELS"
#endif
#if NUM_HEADS % HPB != 0
#error "deformable_attn: HPB must divide NUM_HEADS"
#endif
#if (QPB * HPB * (CHANNELS / CPT)) % 32 != 0
#error "deformable_attn: QPB * HPB * CHANNELS / CPT (consumer threads) must be a multiple of 32"
#endif
#if 32 * WARP_SPLIT + QPB * HPB * (CHANNELS / CPT) > 1024
#error "deformable_attn: more than 1024 threads per block"
#endif
#if WARP_SPLIT < 0 || WARP_SPLIT > 8
#error "deformable_attn: WARP_SPLIT must be 0 to 8"
#endif
#if MIN_BLOCKS < 1 || MIN_BLOCKS * DF_THREADS > 2048
#error "deformable_attn: MIN_BLOCKS * threads must be at most 2048 (threads per SM)"
#endif
#if UNROLL_POINTS < 1 || NUM_POINTS % UNROLL_POINTS != 0
#error "deformable_attn: UNROLL_POINTS must divide NUM_POINTS"
#endif
#if STAGES < 1 || STAGES > 4
#error "deformable_attn: STAGES must be 1 to 4"
#endif
#if STAGE_VALUES < 0 || STAGE_VALUES > 2
#error "deformable_attn: STAGE_VALUES must be 0, 1 or 2"
#endif
#if STAGE_VALUES != 0 && CHANNELS % 4 != 0
#error "deformable_attn: staged corner vectors need CHANNELS % 4 == 0 (16-byte copies)"
#endif
#if WARP_SPLIT == 0 && (STAGES != 1 || STAGE_VALUES != 0)
#error "deformable_attn: the unspecialized kernel (WARP_SPLIT 0) has no stages: STAGES 1, STAGE_VALUES 0"
#endif

#define DF_TPQ (CHANNELS / CPT)                     /* threads per (query, head) */
#define DF_CONSUMERS (QPB * HPB * DF_TPQ)
#define DF_THREADS (32 * WARP_SPLIT + DF_CONSUMERS)
#define DF_SPS (QPB * HPB * NUM_POINTS)             /* samples per stage: one pass, one level */
#define DF_STAGE_META_BYTES (DF_SPS * 32)           /* int4 offsets + float4 weights per sample */
#define DF_STAGE_VALUE_BYTES (STAGE_VALUES ? DF_SPS * 16 * CHANNELS : 0)  /* 4 corners x CHANNELS floats */
#define DF_SMEM_BYTES (WARP_SPLIT ? STAGES * (DF_STAGE_META_BYTES + DF_STAGE_VALUE_BYTES) : 0)
#if DF_SMEM_BYTES > 232448
#error "deformable_attn: shared memory over the 227 KB per-block limit"
#endif

namespace df {

/* One sample's four corners, (y0,x0) (y0,x1) (y1,x0) (y1,x1): element offsets
 * into value and weights = attention weight x bilinear weight, 0 outside the
 * map (the offset then points at a valid element that is multiplied by 0). */
struct Corners {
    int off[4];
    float w[4];
};

__device__ __forceinline__ Corners corners(float lx, float ly, float a, int hl, int wl, int row0) {
    /* grid_sample, align_corners=False: pixel centres at integers */
    const float x = fmaf(lx, (float)wl, -0.5f), y = fmaf(ly, (float)hl, -0.5f);
    const float x0f = floorf(x), y0f = floorf(y);
    const float fx = x - x0f, fy = y - y0f;
    const int x0 = (int)x0f, y0 = (int)y0f;
    const float wy[2] = {1.f - fy, fy}, wx[2] = {1.f - fx, fx};
    Corners c;
#pragma unroll
    for (int dy = 0; dy < 2; ++dy)
#pragma unroll
        for (int dx = 0; dx < 2; ++dx) {
            const int yy = y0 + dy, xx = x0 + dx;
            const bool in = yy >= 0 && yy < hl && xx >= 0 && xx < wl;
            c.off[2 * dy + dx] = in ? (row0 + yy * wl + xx) * (NUM_HEADS * CHANNELS) : 0;
            c.w[2 * dy + dx] = in ? a * wy[dy] * wx[dx] : 0.f;
        }
    return c;
}

/* acc += w * src[0 .. CPT), from global (read-only path) or shared memory */
template <bool kGlobal>
__device__ __forceinline__ void add_weighted(float (&acc)[CPT], float w, const float* src) {
#if CPT >= 4
#pragma unroll
    for (int i = 0; i < CPT / 4; ++i) {
        const float4 v = kGlobal ? __ldg(reinterpret_cast<const float4*>(src) + i) : reinterpret_cast<const float4*>(src)[i];
        acc[4 * i + 0] = fmaf(w, v.x, acc[4 * i + 0]);
        acc[4 * i + 1] = fmaf(w, v.y, acc[4 * i + 1]);
        acc[4 * i + 2] = fmaf(w, v.z, acc[4 * i + 2]);
        acc[4 * i + 3] = fmaf(w, v.w, acc[4 * i + 3]);
    }
#elif CPT == 2
    const float2 v = kGlobal ? __ldg(reinterpret_cast<const float2*>(src)) : *reinterpret_cast<const float2*>(src);
    acc[0] = fmaf(w, v.x, acc[0]);
    acc[1] = fmaf(w, v.y, acc[1]);
#else
    acc[0] = fmaf(w, kGlobal ? __ldg(src) : *src, acc[0]);
#endif
}

__device__ __forceinline__ void store_out(float* dst, const float (&acc)[CPT]) {
#if CPT >= 4
#pragma unroll
    for (int i = 0; i < CPT / 4; ++i)
        reinterpret_cast<float4*>(dst)[i] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
#elif CPT == 2
    *reinterpret_cast<float2*>(dst) = make_float2(acc[0], acc[1]);
#else
    dst[0] = acc[0];
#endif
}

/* A consumer thread's place: (query in pass, head in block, channel group) */
struct Place {
    int qi, hh, cg;
    __device__ __forceinline__ explicit Place(int c) : qi(c / DF_TPQ / HPB), hh(c / DF_TPQ % HPB), cg(c % DF_TPQ) {}
};

}  // namespace df

/* ============================================ WARP_SPLIT = 0: the baseline */
#if WARP_SPLIT == 0
extern "C" __global__ void __launch_bounds__(DF_THREADS, MIN_BLOCKS)
deformable_attn(const float* __restrict__ value, const float* __restrict__ loc, const float* __restrict__ attn,
                float* __restrict__ out, float* __restrict__ ws, deformable_params p) {
    const df::Place me(threadIdx.x);
    const int h = blockIdx.y * HPB + me.hh;
    const int queries = p.B * p.Nq;
    for (int g = 0; g < GROUPS; ++g) {
        const int bq = (blockIdx.x * GROUPS + g) * QPB + me.qi;
        if (bq >= queries) break;
        const float* vbase = value + (size_t)(bq / p.Nq) * p.S * (NUM_HEADS * CHANNELS) + h * CHANNELS + me.cg * CPT;
        const size_t sample0 = ((size_t)bq * NUM_HEADS + h) * (NUM_LEVELS * NUM_POINTS);
        float acc[CPT] = {};
#pragma unroll
        for (int l = 0; l < NUM_LEVELS; ++l) {
            const int hl = p.level_h[l], wl = p.level_w[l], row0 = p.level_start[l];
            /* a loop, not unrolled: the compiler would hoist every level's and point's
             * gathers and run out of registers */
#pragma unroll 1
            for (int pt0 = 0; pt0 < NUM_POINTS; pt0 += UNROLL_POINTS) {
#pragma unroll
                for (int u = 0; u < UNROLL_POINTS; ++u) {
                    const size_t i = sample0 + l * NUM_POINTS + pt0 + u;
                    const float2 xy = __ldg(reinterpret_cast<const float2*>(loc) + i);
                    const df::Corners c = df::corners(xy.x, xy.y, __ldg(attn + i), hl, wl, row0);
#pragma unroll
                    for (int k = 0; k < 4; ++k) df::add_weighted<true>(acc, c.w[k], vbase + c.off[k]);
                }
            }
        }
        df::store_out(out + (size_t)bq * (NUM_HEADS * CHANNELS) + h * CHANNELS + me.cg * CPT, acc);
    }
}
#endif

/* ===================================== WARP_SPLIT > 0: producers and consumers */
#if WARP_SPLIT > 0
namespace df {

using namespace ptx;

constexpr int kProducers = 32 * WARP_SPLIT;
constexpr int kSamplesPerWarp = (DF_SPS + WARP_SPLIT - 1) / WARP_SPLIT;  /* a producer warp's own samples */
constexpr unsigned kFullArrivals = kProducers * (STAGE_VALUES == 1 ? 2 : 1);

struct Stage {
    int4* off;      /* [DF_SPS] */
    float4* w;      /* [DF_SPS] */
    float* values;  /* [DF_SPS][4][CHANNELS] when STAGE_VALUES */
};

__device__ __forceinline__ Stage stage_at(unsigned char* smem, int st) {
    unsigned char* base = smem + st * (DF_STAGE_META_BYTES + DF_STAGE_VALUE_BYTES);
    Stage s;
    s.off = reinterpret_cast<int4*>(base);
    s.w = reinterpret_cast<float4*>(base + DF_SPS * 16);
    s.values = reinterpret_cast<float*>(base + DF_STAGE_META_BYTES);
    return s;
}

/* Producer warp `warp`, lane `lane`: metadata of its samples of (pass g, level l),
 * then (STAGE_VALUES) their corner vectors, then its arrival(s) on FULL. */
__device__ __forceinline__ void produce(const float* value, const float* loc, const float* attn,
                                        const deformable_params& p, int g, int l, Stage s, unsigned long long* full,
                                        int warp, int lane) {
    const int first = warp * kSamplesPerWarp;
    const int last = min(first + kSamplesPerWarp, DF_SPS);
    const int queries = p.B * p.Nq;
    const int hl = p.level_h[l], wl = p.level_w[l], row0 = p.level_start[l];
    for (int smp = first + lane; smp < last; smp += 32) {
        const int pt = smp % NUM_POINTS, hh = smp / NUM_POINTS % HPB, qi = smp / NUM_POINTS / HPB;
        const int bq = (blockIdx.x * GROUPS + g) * QPB + qi;
        const int h = blockIdx.y * HPB + hh;
        Corners c = {{0, 0, 0, 0}, {0.f, 0.f, 0.f, 0.f}};
        if (bq < queries) {
            const size_t i = (((size_t)bq * NUM_HEADS + h) * NUM_LEVELS + l) * NUM_POINTS + pt;
            const float2 xy = __ldg(reinterpret_cast<const float2*>(loc) + i);
            c = corners(xy.x, xy.y, __ldg(attn + i), hl, wl, row0);
            const int base = (bq / p.Nq) * p.S * (NUM_HEADS * CHANNELS) + h * CHANNELS;
#pragma unroll
            for (int k = 0; k < 4; ++k) c.off[k] += base;
        }
        s.off[smp] = make_int4(c.off[0], c.off[1], c.off[2], c.off[3]);
        s.w[smp] = make_float4(c.w[0], c.w[1], c.w[2], c.w[3]);
    }
#if STAGE_VALUES == 0
    mbar_arrive(full);
#else
    __syncwarp(); /* the copies below read offsets other lanes wrote */
    const int corners_n = 4 * (last - first);
#if STAGE_VALUES == 1
    /* 16-byte chunks, CHANNELS / 4 per corner, consecutive lanes on consecutive chunks */
    constexpr int kChunks = CHANNELS / 4;
    for (int idx = lane; idx < corners_n * kChunks; idx += 32) {
        const int corner = first * 4 + idx / kChunks, chunk = idx % kChunks;
        const int off = reinterpret_cast<const int*>(s.off)[corner];
        cp_async16(smem_addr(s.values + corner * CHANNELS + 4 * chunk), value + off + 4 * chunk);
    }
    cp_async_mbarrier_arrive(full);
    mbar_arrive(full);
#else
    /* one bulk copy of 4 * CHANNELS bytes per corner */
    const int mine = corners_n > lane ? (corners_n - lane + 31) / 32 : 0;
    mbar_arrive_expect_tx(full, (unsigned)(mine * CHANNELS * 4));
    for (int idx = lane; idx < corners_n; idx += 32) {
        const int corner = first * 4 + idx;
        const int off = reinterpret_cast<const int*>(s.off)[corner];
        bulk_copy(s.values + corner * CHANNELS, value + off, CHANNELS * 4, full);
    }
#endif
#endif
}

}  // namespace df

extern "C" __global__ void __launch_bounds__(DF_THREADS, MIN_BLOCKS)
deformable_attn(const float* __restrict__ value, const float* __restrict__ loc, const float* __restrict__ attn,
                float* __restrict__ out, float* __restrict__ ws, deformable_params p) {
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    {
        unsigned given;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(given));
        if (given < DF_SMEM_BYTES) __trap(); /* the spec's shared_bytes disagrees with DF_SMEM_BYTES */
    }
    if (threadIdx.x == 0) {
        for (int st = 0; st < STAGES; ++st) {
            df::mbar_init(&full[st], df::kFullArrivals);
            df::mbar_init(&empty[st], DF_CONSUMERS);
        }
    }
    __syncthreads();

    const int warp = threadIdx.x / 32;
    if (warp < WARP_SPLIT) {
        /* ---- producer: fills stage it % STAGES once its consumers have released it */
        int it = 0;
        for (int g = 0; g < GROUPS; ++g) {
#pragma unroll
            for (int l = 0; l < NUM_LEVELS; ++l, ++it) {
                const int st = it % STAGES;
                df::mbar_wait(&empty[st], ((it / STAGES) & 1) ^ 1);
                df::produce(value, loc, attn, p, g, l, df::stage_at(smem, st), &full[st], warp, threadIdx.x % 32);
            }
        }
    } else {
        /* ---- consumer: CPT channels of one (query, head) */
        const df::Place me(threadIdx.x - df::kProducers);
        const int h = blockIdx.y * HPB + me.hh;
        const int queries = p.B * p.Nq;
        const int s0 = (me.qi * HPB + me.hh) * NUM_POINTS; /* this pair's samples in a stage */
        int it = 0;
        for (int g = 0; g < GROUPS; ++g) {
            float acc[CPT] = {};
#pragma unroll
            for (int l = 0; l < NUM_LEVELS; ++l, ++it) {
                const int st = it % STAGES;
                df::mbar_wait(&full[st], (it / STAGES) & 1);
                const df::Stage s = df::stage_at(smem, st);
#pragma unroll 1
                for (int pt0 = 0; pt0 < NUM_POINTS; pt0 += UNROLL_POINTS)
#pragma unroll
                for (int pt = pt0; pt < pt0 + UNROLL_POINTS; ++pt) {
                    const float4 w = s.w[s0 + pt];
#if STAGE_VALUES == 0
                    const int4 off = s.off[s0 + pt];
                    const float* v = value + me.cg * CPT;
                    df::add_weighted<true>(acc, w.x, v + off.x);
                    df::add_weighted<true>(acc, w.y, v + off.y);
                    df::add_weighted<true>(acc, w.z, v + off.z);
                    df::add_weighted<true>(acc, w.w, v + off.w);
#else
                    const float* v = s.values + (s0 + pt) * 4 * CHANNELS + me.cg * CPT;
                    df::add_weighted<false>(acc, w.x, v);
                    df::add_weighted<false>(acc, w.y, v + CHANNELS);
                    df::add_weighted<false>(acc, w.z, v + 2 * CHANNELS);
                    df::add_weighted<false>(acc, w.w, v + 3 * CHANNELS);
#endif
                }
                df::mbar_arrive(&empty[st]);
            }
            const int bq = (blockIdx.x * GROUPS + g) * QPB + me.qi;
            if (bq < queries) df::store_out(out + (size_t)bq * (NUM_HEADS * CHANNELS) + h * CHANNELS + me.cg * CPT, acc);
        }
    }
}
#endif

/* Score modifiers of the wgmma prefill kernels (flash_attn_fwd_wgmma.cu,
 * flash_attn_fwd_ws.cu), written once: which KV tiles a block of query rows
 * attends (bottom-right causal, sliding window), whether a tile needs
 * per-element masking, that masking on a wgmma accumulator tile (causal /
 * window / Nkv edges, additive mask, ALiBi; log2 domain) and the ALiBi slope (the
 * softmax and the epilogue's normaliser with sinks: online_softmax.cuh).  Needs attn_params (common/attn_params.h)
 * and cuda_fp16.h included first. */
#ifndef ATTN_TUNE_CUDA_ATTN_SCORE_MODS_CUH
#define ATTN_TUNE_CUDA_ATTN_SCORE_MODS_CUH

#include "cuda/attn_tile_ranges.cuh"
#include "cuda/ptx/math.cuh"

namespace score_mods {

constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

/* ALiBi slope of query head h times log2(e) (0 without ALiBi) */
__device__ __forceinline__ float alibi_slope_log2(const attn_params& p, int h) {
    if (!(p.max_bias > 0.f)) return 0.f;
    return kLog2e * (h < p.n_head_log2 ? __powf(p.m0, (float)(h + 1))
                                       : __powf(p.m1, (float)(2 * (h - p.n_head_log2) + 1)));
}

/* Per-element masking of one warp's wgmma accumulator tile (kChunks n8 chunks of
 * keys n0 ..; this thread's rows i0 and i0 + 8, columns lc, lc + 1 of each
 * chunk; at(c, k) is element k of chunk c, as m64nN lays them out): every kept
 * score becomes s * sl2 (+ the mask, - the ALiBi distance) in the log2 domain,
 * every masked one -inf.  mask_b: this batch's [Nq][Nkv]. */
template <int kChunks, typename At>
__device__ __forceinline__ void mask_chunks(At at, const attn_params& p, const __half* __restrict__ mask_b, bool always,
                                            float slope2, float sl2, int i0, int n0, int lc) {
    const int Nq = p.Nq, Nkv = p.Nkv;
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
        const int i = i0 + 8 * hh;
        const int pos = p.kv_offset + i;
        int j_lo, j_hi; /* key j is kept iff j_lo <= j < j_hi */
        kept_keys(p, pos, j_lo, j_hi);
        const bool mrow_ok = p.has_mask && i < Nq;
        const __half* __restrict__ mrow = mask_b + (long long)(i < Nq ? i : 0) * Nkv;
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                float& x = at(c, 2 * hh + e);
                const int key = n0 + 8 * c + lc + e;
                float y = x * sl2;
                if (always) {
                    y -= slope2 * (float)abs(pos - key);
                    if (mrow_ok && key < Nkv) y = fmaf(__half2float(mrow[key]), kLog2e, y);
                }
                x = (key < j_hi && key >= j_lo) ? y : neg_inf();
            }
    }
}

/* ... of a tile held as kSN n64 pieces */
template <int kSN>
__device__ __forceinline__ void mask_tile(float (&s)[kSN][32], const attn_params& p, const __half* __restrict__ mask_b,
                                          bool always, float slope2, float sl2, int i0, int n0, int lc) {
    mask_chunks<8 * kSN>([&](int c, int k) -> float& { return s[c / 8][4 * (c % 8) + k]; }, p, mask_b, always, slope2,
                         sl2, i0, n0, lc);
}

/* ... of a tile of kCols keys held as one m64n{kCols} accumulator */
template <int kCols>
__device__ __forceinline__ void mask_tile(float (&s)[kCols / 2], const attn_params& p, const __half* __restrict__ mask_b,
                                          bool always, float slope2, float sl2, int i0, int n0, int lc) {
    mask_chunks<kCols / 8>([&](int c, int k) -> float& { return s[4 * c + k]; }, p, mask_b, always, slope2, sl2, i0, n0,
                           lc);
}

}  // namespace score_mods

#endif

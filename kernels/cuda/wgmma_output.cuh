/* The output epilogue of the wgmma prefill kernels (flash_attn_fwd_wgmma.cu, flash_attn_fwd_ws.cu).
 *
 * One m64 row tile of O as wgmma accumulates it (per thread two rows, lr and lr + 8, and per
 * 64-column panel 8 pairs of columns): the row sums are completed across the quad, the sinks and
 * the row maximum give the normaliser (score_mods::row_normalizer), and each pair is stored packed.
 * Rows past Nq and the padded columns of a head dimension that is not a multiple of 64 are never
 * stored. */
#pragma once

#include "cuda/attn_score_mods.cuh"
#include "cuda/ptx/mma.cuh"

template <typename Elem, int kPanels, int kHeadDim>
__device__ __forceinline__ void store_output_rows(const float (&oacc)[kPanels][32], const float (&row_m)[2],
                                                  const float (&row_l)[2], float sink2, bool has_sinks,
                                                  Elem* __restrict__ og, int row0, int Nq, int lc) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
        float l = row_l[hh];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const float inv = score_mods::row_normalizer(l, row_m[hh], sink2, has_sinks);
        const int gr = row0 + 8 * hh;
        if (gr < Nq) {
            Elem* __restrict__ orow = og + (long long)gr * kHeadDim + lc;
#pragma unroll
            for (int j = 0; j < kPanels; ++j)
#pragma unroll
                for (int c = 0; c < 8; ++c)
                    if (64 * j + 8 * c < kHeadDim)
                        *reinterpret_cast<unsigned*>(orow + 64 * j + 8 * c) =
                            ptx::pack2<Elem>(oacc[j][4 * c + 2 * hh] * inv, oacc[j][4 * c + 2 * hh + 1] * inv);
        }
    }
}

/* The output epilogue of the wgmma prefill kernels (flash_attn_fwd_wgmma.cu, flash_attn_fwd_ws.cu).
 *
 * One m64 row tile of O as wgmma accumulates it (per thread two rows, lr and lr + 8, and per
 * 64-column panel 8 pairs of columns): the row sums are completed across the quad, the sinks and
 * the row maximum give the normaliser (online_softmax::row_normalizer), and each pair is stored packed.
 * Rows past Nq and the padded columns of a head dimension that is not a multiple of 64 are never
 * stored. */
#pragma once

#include "cuda/online_softmax.cuh"
#include "cuda/ptx/mma.cuh"
#include "cuda/ptx/shared.cuh"

/* The normalised rows of the tile, packed: for row lr + 8 hh where kept(hh), put(hh, j, c, pair) for
 * panel j, n8 chunk c */
template <typename Elem, int kPanels, int kHeadDim, typename Kept, typename Put>
__device__ __forceinline__ void output_rows(const float (&oacc)[kPanels][32], const float (&row_m)[2],
                                            const float (&row_l)[2], float sink2, bool has_sinks, Kept kept, Put put) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
        const float inv =
            online_softmax::row_normalizer(online_softmax::quad_sum(row_l[hh]), row_m[hh], sink2, has_sinks);
        if (!kept(hh)) continue;
#pragma unroll
        for (int j = 0; j < kPanels; ++j)
#pragma unroll
            for (int c = 0; c < 8; ++c)
                if (64 * j + 8 * c < kHeadDim)
                    put(hh, j, c, ptx::pack2<Elem>(oacc[j][4 * c + 2 * hh] * inv, oacc[j][4 * c + 2 * hh + 1] * inv));
    }
}

/* ... stored to O in global memory (og: the head's rows), this thread's rows row0 and row0 + 8 */
template <typename Elem, int kPanels, int kHeadDim>
__device__ __forceinline__ void store_output_rows(const float (&oacc)[kPanels][32], const float (&row_m)[2],
                                                  const float (&row_l)[2], float sink2, bool has_sinks,
                                                  Elem* __restrict__ og, int row0, int Nq, int lc) {
    output_rows<Elem, kPanels, kHeadDim>(
        oacc, row_m, row_l, sink2, has_sinks, [&](int hh) { return row0 + 8 * hh < Nq; },
        [&](int hh, int j, int c, unsigned v) {
            *reinterpret_cast<unsigned*>(og + (long long)(row0 + 8 * hh) * kHeadDim + 64 * j + 8 * c + lc) = v;
        });
}

/* ... written to shared memory as 64-column panels of 64 rows with the 128-byte swizzle (a TMA store's
 * box; panel j at tile + 8 KB j, tile 1024-byte aligned), this thread's rows row0 and row0 + 8 of them.
 * kHeadDim a multiple of 64: a box stores whole panels. */
template <typename Elem, int kPanels, int kHeadDim>
__device__ __forceinline__ void stage_output_rows(const float (&oacc)[kPanels][32], const float (&row_m)[2],
                                                  const float (&row_l)[2], float sink2, bool has_sinks, unsigned tile,
                                                  int row0, int lc) {
    output_rows<Elem, kPanels, kHeadDim>(
        oacc, row_m, row_l, sink2, has_sinks, [](int) { return true; },
        [&](int hh, int j, int c, unsigned v) {
            const int r = row0 + 8 * hh; /* its 16-byte chunk c moves to c ^ (r % 8) */
            ptx::st_shared_u32(tile + j * 64 * 128 + r * 128 + ((c ^ (r & 7)) << 4) + 2 * lc, v);
        });
}

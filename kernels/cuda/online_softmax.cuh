/* The online softmax of the prefill kernels (flash_attn_fwd.cu, flash_attn_fwd_wgmma.cu,
 * flash_attn_fwd_ws.cu), written once.  Log2 domain: each query row keeps its running maximum m
 * and its running sum l of 2^(x - m) over the keys seen so far; a tile whose maximum raises m to
 * m' scales what was accumulated (l and the row of O) by alpha = 2^(m - m').
 *
 * The masked-row guard: a row that has attended no key yet (every score so far -inf: masked,
 * outside the window, past a causal edge) has m = -inf, and subtracting it would give
 * -inf - (-inf) = NaN.  Such a row subtracts 0 instead, so every 2^(-inf - 0) is an exact 0 and so
 * is alpha (nothing was accumulated); at the end its normaliser is 0 rather than 1 / 0.
 *
 * Accumulator rows as mma.sync m16n8 and wgmma m64nN hold them: each thread has two rows, lr
 * (hh = 0) and lr + 8 (hh = 1), in pairs of columns, elements 4 c + 2 hh and 4 c + 2 hh + 1 of
 * n8 chunk c; the four lanes of a quad hold one row between them. */
#ifndef ATTN_TUNE_CUDA_ONLINE_SOFTMAX_CUH
#define ATTN_TUNE_CUDA_ONLINE_SOFTMAX_CUH

#include "cuda/ptx/math.cuh"

namespace online_softmax {

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

/* x reduced over the quad of lanes that hold one accumulator row */
__device__ __forceinline__ float quad_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

/* One row's step to a tile whose maximum (log2 domain, the quad's) is tile_max: m becomes the new
 * running maximum, alpha the factor for what was accumulated under the old one.  Returns the
 * maximum to subtract from the tile's scores: m, or 0 for a row that attended nothing yet. */
__device__ __forceinline__ float advance_max(float& m, float tile_max, float& alpha) {
    const float m_new = fmaxf(m, tile_max);
    const float m_use = (m_new == neg_inf()) ? 0.f : m_new;
    alpha = ptx::ex2(m - m_use);
    m = m_new;
    return m_use;
}

/* The rescale step: an accumulator fragment (kN / 4 n8 chunks; mma.sync m16n8: kN = 4, one
 * m64n64 wgmma piece: 32) times alpha[hh] in row hh */
template <int kN>
__device__ __forceinline__ void rescale(float (&acc)[kN], const float (&alpha)[2]) {
    static_assert(kN % 4 == 0, "online_softmax::rescale: whole n8 chunks");
#pragma unroll
    for (int c = 0; c < kN / 4; ++c)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            acc[4 * c + 2 * hh] *= alpha[hh];
            acc[4 * c + 2 * hh + 1] *= alpha[hh];
        }
}

/* ... of row hh alone */
template <int kN>
__device__ __forceinline__ void rescale_row(float (&acc)[kN], int hh, float alpha) {
    static_assert(kN % 4 == 0, "online_softmax::rescale_row: whole n8 chunks");
#pragma unroll
    for (int c = 0; c < kN / 4; ++c) {
        acc[4 * c + 2 * hh] *= alpha;
        acc[4 * c + 2 * hh + 1] *= alpha;
    }
}

/* The factor a row's O accumulator is multiplied by at the end: 1 / (l + the sink's weight) at the
 * row's maximum m (sink2: the sink's logit in the log2 domain, -inf without sinks), guarded: 0
 * when nothing was attended (m and the sink -inf, or a zero denominator).  l: the full row sum
 * (quad_sum of the lanes' parts). */
__device__ __forceinline__ float row_normalizer(float l, float m, float sink2, bool has_sinks) {
    const float m_f = fmaxf(m, sink2);
    float inv = 0.f;
    if (m_f != neg_inf()) {
        const float w = ptx::ex2(m - m_f); /* 0 when nothing attended */
        const float den = l * w + (has_sinks ? ptx::ex2(sink2 - m_f) : 0.f);
        inv = den > 0.f ? w * __frcp_rn(den) : 0.f;
    }
    return inv;
}

}  // namespace online_softmax

#endif

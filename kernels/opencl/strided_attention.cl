/* Attention with a FlashAttention-2-style argument list: pointers, per-tensor
 * strides (in elements) and scalars, no parameter struct. It is not written
 * to kernels/common/attn_params.h; the spec's `arguments` bind its signature
 * (configs/strided_attention.json), so any layout whose strides the spec can
 * express (bhsd today) runs unchanged.
 *
 * One work-item per query row, online softmax; Q and O float, K and V half
 * (the attention operation's f32_f16). Causal is bottom-right aligned: row i
 * sits at position seqlen_k - seqlen_q + i. No mask, sinks or ALiBi.
 */
#ifndef BLOCK_M
#define BLOCK_M 16 /* work-items per group */
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif

__kernel void strided_attention(__global const float* Q, __global const half* K, __global const half* V,
                                __global float* Out,
                                const int stride_qb, const int stride_qh, const int stride_qm,
                                const int stride_kb, const int stride_kh, const int stride_kn,
                                const int stride_vb, const int stride_vh, const int stride_vn,
                                const int stride_ob, const int stride_oh, const int stride_om,
                                const int nheads, const int nheads_k, const int seqlen_q, const int seqlen_k,
                                const float softmax_scale, const int is_causal) {
  const int i = get_global_id(0);
  const int h = get_group_id(1);
  const int b = get_group_id(2);
  if (i >= seqlen_q) return;
  const int hk = h / (nheads / nheads_k);
  __global const float* q = Q + (size_t)b * stride_qb + (size_t)h * stride_qh + (size_t)i * stride_qm;
  __global const half* k = K + (size_t)b * stride_kb + (size_t)hk * stride_kh;
  __global const half* v = V + (size_t)b * stride_vb + (size_t)hk * stride_vh;

  const int last = is_causal ? min(seqlen_k - 1, seqlen_k - seqlen_q + i) : seqlen_k - 1;
  float m = -INFINITY, l = 0.0f;
  float acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) acc[d] = 0.0f;
  for (int j = 0; j <= last; ++j) {
    float s = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * vload_half((size_t)j * stride_kn + d, k);
    s *= softmax_scale;
    const float m_new = fmax(m, s);
    const float correction = exp(m - m_new);
    const float w = exp(s - m_new);
    l = l * correction + w;
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * correction + w * vload_half((size_t)j * stride_vn + d, v);
    m = m_new;
  }
  __global float* o = Out + (size_t)b * stride_ob + (size_t)h * stride_oh + (size_t)i * stride_om;
  for (int d = 0; d < HEAD_DIM; ++d) o[d] = acc[d] / l;
}

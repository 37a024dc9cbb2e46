/* Attention written the way inference engines write theirs: pointers, byte
 * strides (ulong) and scalars, and optional inputs tested against NULL. The
 * mask and the sinks are used only when the caller passes them: a shape
 * without a mask passes mask == NULL, one without sinks passes sinks == NULL
 * (the spec's {"buffer": ..., "null_when": ...}).
 *
 * One work-item per query row, online softmax. Q and O float, K and V half,
 * read with vload_half (no cl_khr_fp16 needed). Mask: additive, half,
 * [B][Nq][Nkv]; sinks: one float logit per query head, in the softmax's
 * denominator only.
 */
#ifndef HEAD_DIM
#define HEAD_DIM 16
#endif

__kernel void attn_optional(__global const float* q, __global const half* k, __global const half* v,
                            __global const half* mask, __global const float* sinks, __global float* dst,
                            const int n_head, const int n_head_kv, const int n_q, const int n_kv,
                            const float scale, const ulong nb_mask1, const ulong nb_mask2) {
  const int i = get_global_id(0);
  const int h = get_group_id(1);
  const int b = get_group_id(2);
  if (i >= n_q) return;
  const int hk = h / (n_head / n_head_kv);
  __global const float* qr = q + (((size_t)b * n_head + h) * n_q + i) * HEAD_DIM;
  __global const half* kh = k + ((size_t)b * n_head_kv + hk) * n_kv * HEAD_DIM;
  __global const half* vh = v + ((size_t)b * n_head_kv + hk) * n_kv * HEAD_DIM;
  __global const half* mr =
      mask == NULL ? NULL : (__global const half*)((__global const char*)mask + b * nb_mask2 + i * nb_mask1);

  float m = sinks == NULL ? -INFINITY : sinks[h];
  float l = 0.0f;
  float acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) acc[d] = 0.0f;
  for (int j = 0; j < n_kv; ++j) {
    float s = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) s += qr[d] * vload_half((size_t)j * HEAD_DIM + d, kh);
    s *= scale;
    if (mr != NULL) s += vload_half(j, mr);
    if (s == -INFINITY) continue;
    const float m_new = fmax(m, s);
    const float c = exp(m - m_new), w = exp(s - m_new);
    l = l * c + w;
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * c + w * vload_half((size_t)j * HEAD_DIM + d, vh);
    m = m_new;
  }
  if (sinks != NULL) l += exp(sinks[h] - m);
  __global float* o = dst + (((size_t)b * n_head + h) * n_q + i) * HEAD_DIM;
  for (int d = 0; d < HEAD_DIM; ++d) o[d] = acc[d] / l;
}

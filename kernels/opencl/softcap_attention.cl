/* Soft-capped attention (Gemma 2's logit soft-capping), an attention variant
 * none of attn-tune's built-in operations knows: tuned from this file and
 * configs/softcap_attention.json alone ("operation": "custom").
 *   s_j = cap * tanh(scale * (q . k_j) / cap);   o = softmax(s) V
 * Layout [B][H][N][D], all float, no mask. Two entries:
 *   softcap_naive  one work-item per query row, two passes (max, then sums):
 *                  the reference the spec verifies against;
 *   softcap_tiled  a work-group of WG rows shares TILE_N keys and values in
 *                  local memory, one pass with an online softmax: the tuned one.
 */
#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif
#ifndef WG
#define WG 16
#endif
#ifndef TILE_N
#define TILE_N 16
#endif
#ifndef REF_FAULT
#define REF_FAULT 0 /* 1: the naive kernel drops the last key (tests plant a wrong reference with it) */
#endif

float capped(float dot, float scale, float cap) { return cap * tanh(scale * dot / cap); }

__kernel void softcap_naive(__global const float* q, __global const float* k, __global const float* v,
                            __global float* o, const int n, const float scale, const float cap) {
  const int i = get_global_id(0);
  const size_t head = get_global_id(1);
  if (i >= n) return;
  __global const float* qr = q + (head * n + i) * HEAD_DIM;
  __global const float* kh = k + head * n * HEAD_DIM;
  __global const float* vh = v + head * n * HEAD_DIM;
  const int keys = n - REF_FAULT;
  float m = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    float dot = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) dot += qr[d] * kh[j * HEAD_DIM + d];
    m = fmax(m, capped(dot, scale, cap));
  }
  float l = 0.0f;
  float acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) acc[d] = 0.0f;
  for (int j = 0; j < keys; ++j) {
    float dot = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) dot += qr[d] * kh[j * HEAD_DIM + d];
    const float w = exp(capped(dot, scale, cap) - m);
    l += w;
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] += w * vh[j * HEAD_DIM + d];
  }
  for (int d = 0; d < HEAD_DIM; ++d) o[(head * n + i) * HEAD_DIM + d] = acc[d] / l;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void softcap_tiled(
    __global const float* q, __global const float* k, __global const float* v, __global float* o, const int n,
    const float scale, const float cap) {
  __local float ks[TILE_N][HEAD_DIM];
  __local float vs[TILE_N][HEAD_DIM];
  const int lid = get_local_id(0);
  const int i = get_group_id(0) * WG + lid;
  const size_t head = get_group_id(1);
  const bool active = i < n;
  __global const float* kh = k + head * n * HEAD_DIM;
  __global const float* vh = v + head * n * HEAD_DIM;

  float qr[HEAD_DIM], acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) {
    qr[d] = active ? q[(head * n + i) * HEAD_DIM + d] : 0.0f;
    acc[d] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;
  for (int j0 = 0; j0 < n; j0 += TILE_N) {
    const int tile = min(TILE_N, n - j0);
    for (int e = lid; e < tile * HEAD_DIM; e += WG) {  // the group loads the tile together
      ks[e / HEAD_DIM][e % HEAD_DIM] = kh[(size_t)j0 * HEAD_DIM + e];
      vs[e / HEAD_DIM][e % HEAD_DIM] = vh[(size_t)j0 * HEAD_DIM + e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < tile; ++t) {
      float dot = 0.0f;
      for (int d = 0; d < HEAD_DIM; ++d) dot += qr[d] * ks[t][d];
      const float s = capped(dot, scale, cap);
      const float m_new = fmax(m, s);
      const float correction = exp(m - m_new);
      const float w = exp(s - m_new);
      l = l * correction + w;
      for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * correction + w * vs[t][d];
      m = m_new;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (active)
    for (int d = 0; d < HEAD_DIM; ++d) o[(head * n + i) * HEAD_DIM + d] = acc[d] / l;
}

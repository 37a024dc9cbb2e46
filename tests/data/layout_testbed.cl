/* A naive attention kernel (one work-item per query row, f32_f16) that reads
 * q, k, v and o through the layout fields of attn_params, for attn-tune's own
 * layout tests, with planted layout faults:
 *   FAULT 0 correct
 *         1 reads q with [B][H][N][D] strides whatever the layout (clamped
 *           to the buffer: a wrong value, never a wild read; o is written right)
 *         2 ignores the block table: a sequence's pages taken in pool order
 *         3 ignores cu_seqlens: every sequence as long as the longest
 * SEQ_BUFFERS: the shape passes cu_seqlens_q, cu_seqlens_k and block_table (thd or paged).
 */
#include "common/attn_params.h"

#ifndef FAULT
#define FAULT 0
#endif
#ifndef DK
#define DK 64
#endif
#ifndef SEQ_BUFFERS
#define SEQ_BUFFERS 0
#endif

__kernel void layout_attention(__global const float* q, __global const half* k, __global const half* v,
                               __global const half* mask, __global const float* sinks, __global float* o,
#if SEQ_BUFFERS
                               __global const int* cu_seqlens_q, __global const int* cu_seqlens_k,
                               __global const int* block_table,
#endif
                               __global float* ws, const attn_params p) {
  const int i = get_global_id(0);
  const int h = get_group_id(1);
  const int b = get_group_id(2);
  int nq = p.Nq, nk = p.Nkv;
  long q_start = (long)b * p.stride_q_b, k_start = (long)b * p.stride_k_b;
  const long sqh = p.stride_q_h, sqn = p.stride_q_n;
#if SEQ_BUFFERS && FAULT != 3
  nq = cu_seqlens_q[b + 1] - cu_seqlens_q[b];
  nk = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
  if (p.layout == 2) {
    q_start = (long)cu_seqlens_q[b] * p.stride_q_n;
    k_start = (long)cu_seqlens_k[b] * p.stride_k_n;
  }
#endif
  if (i >= nq) return;
  const int hk = h / p.q_per_kv;
  const int pos = nk - nq + i;
#if FAULT == 1
  long q_elements = (long)p.B * p.Hq * p.Nq * DK;
#if SEQ_BUFFERS
  if (p.layout == 2) q_elements = (long)cu_seqlens_q[p.B] * p.Hq * DK;
#endif
  const long q_row = min(((long)(b * p.Hq + h) * p.Nq + i) * DK, q_elements - DK);
  __global const float* qr = q + q_row;
#else
  __global const float* qr = q + q_start + h * sqh + i * sqn;
#endif
  float slope = 0.0f;
  if (p.max_bias > 0.0f)
    slope = h < p.n_head_log2 ? pow(p.m0, (float)(h + 1)) : pow(p.m1, (float)(2 * (h - p.n_head_log2) + 1));

  float m = p.has_sinks ? sinks[h] : -INFINITY;
  float l = 0.0f;
  float acc[DK];
  for (int d = 0; d < DK; ++d) acc[d] = 0.0f;
  int last = nk - 1;
  if (p.causal) last = min(last, pos);
  if (p.window > 0) last = min(last, pos + p.window);
  const int first = p.window > 0 ? max(0, pos - p.window) : 0;
  for (int j = first; j <= last; ++j) {
    long row = k_start + (long)j * p.stride_k_n;
#if SEQ_BUFFERS
    if (p.page_size > 0) {
#if FAULT == 2
      const long page = (long)b * p.max_pages + j / p.page_size;
#else
      const long page = block_table[b * p.max_pages + j / p.page_size];
#endif
      row = page * p.stride_k_page + (long)(j % p.page_size) * p.stride_k_n;
    }
#endif
    __global const half* kr = k + row + hk * p.stride_k_h;
    __global const half* vr = v + row + hk * p.stride_k_h;
    float s = 0.0f;
    for (int d = 0; d < DK; ++d) s += qr[d] * vload_half(d, kr);
    s = s * p.scale - slope * (float)abs(pos - j);
    if (p.has_mask) s += vload_half((size_t)(b * p.Nq + i) * p.Nkv + j, mask);
    if (s == -INFINITY) continue;
    const float m_new = fmax(m, s);
    const float correction = exp(m - m_new);
    const float w = exp(s - m_new);
    l = l * correction + w;
    for (int d = 0; d < DK; ++d) acc[d] = acc[d] * correction + w * vload_half(d, vr);
    m = m_new;
  }
  if (p.has_sinks) l += exp(sinks[h] - m);
  __global float* out = o + q_start + h * sqh + i * sqn;
  for (int d = 0; d < DK; ++d) out[d] = acc[d] / l;
}

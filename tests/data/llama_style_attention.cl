/* Flash attention written the way an inference engine writes it (llama.cpp's
 * ggml-opencl flash_attn_f32.cl, cut down to one work-item per query row), not
 * to attn-tune's contract: untyped pointers with byte offsets, ggml's byte
 * strides nb1..nb3 per tensor, the output permuted to [B][N][H][D] strides
 * (o_nb1 is the head stride, o_nb2 the row stride), ALiBi from max_bias, m0,
 * m1 and n_head_log2 as slope x the mask's value, logit soft-capping, and a
 * mask broadcast over heads and sequences through mask_ne2 / mask_ne3
 * (mask head = head % mask_ne2, mask sequence = batch % mask_ne3).
 *
 * All of q, k, v and o are float (attn-tune's dtype f32). The mask is float,
 * or half with MASK_F16 = 1, read with vload_half: no cl_khr_fp16 needed.
 *
 *   DK         head dimension
 *   HAS_MASK   llama.cpp tests mask_void != NULL; attn-tune passes a small
 *   HAS_SINKS  zeroed buffer for an input the shape turns off, so the spec
 *              says it with these defines
 *   FAULT      0 correct, and planted faults verification must catch:
 *              1 drops the soft-cap
 *              2 ALiBi by distance (mask - slope * |pos - j|) instead of slope * mask
 *              3 reads mask head 0 for every head (a per-head mask read as shared)
 *              4 keeps 10 mantissa bits of q and k, as a half-precision kernel would
 */
#ifndef DK
#define DK 64
#endif
#ifndef MASK_F16
#define MASK_F16 0
#endif
#ifndef HAS_MASK
#define HAS_MASK 1
#endif
#ifndef HAS_SINKS
#define HAS_SINKS 0
#endif
#ifndef FAULT
#define FAULT 0
#endif

#if MASK_F16
#define MASK_AT(row, j) vload_half((j), (const global half*)(row))
#else
#define MASK_AT(row, j) (((const global float*)(row))[j])
#endif

#if FAULT == 4
#define ROUNDED(x) as_float(as_uint(x) & 0xffffe000u)
#else
#define ROUNDED(x) (x)
#endif

inline float get_alibi_slope(const float max_bias, const int h, const int n_head_log2, const float m0,
                             const float m1) {
  if (max_bias <= 0.0f) return 1.0f;
  const float base = h < n_head_log2 ? m0 : m1;
  const int exph = h < n_head_log2 ? h + 1 : 2 * (h - n_head_log2) + 1;
  return pow(base, (float)exph);
}

__kernel void flash_attn_f32(const global void* q_void, ulong q_offset, const global void* k_void, ulong k_offset,
                             const global void* v_void, ulong v_offset, global void* o_void, ulong o_offset,
                             const float scale, const int n_q, const int n_kv, const int is_causal, const int n_head,
                             const ulong q_nb1, const ulong q_nb2, const ulong q_nb3, const ulong k_nb1,
                             const ulong k_nb2, const ulong k_nb3, const ulong v_nb1, const ulong v_nb2,
                             const ulong v_nb3, const ulong o_nb1, const ulong o_nb2, const ulong o_nb3,
                             const float max_bias, const float m0, const float m1, const int n_head_log2,
                             const float logit_softcap, const int n_head_kv, const global void* mask_void,
                             const ulong mask_offset, const ulong mask_nb1, const ulong mask_nb2,
                             const ulong mask_nb3, const int mask_ne2, const int mask_ne3,
                             const global void* sinks_void, const ulong sinks_offset) {
  const int row = get_global_id(0);
  const int head = get_global_id(1);
  const int batch = get_global_id(2);
  if (row >= n_q) return;
  const int head_kv = head / (n_head / n_head_kv);

  const global char* q_row = (const global char*)q_void + q_offset + batch * q_nb3 + head * q_nb2 + row * q_nb1;
  const global char* k_base = (const global char*)k_void + k_offset + batch * k_nb3 + head_kv * k_nb2;
  const global char* v_base = (const global char*)v_void + v_offset + batch * v_nb3 + head_kv * v_nb2;
  float q_priv[DK];
  for (int d = 0; d < DK; ++d) q_priv[d] = ROUNDED(((const global float*)q_row)[d]);

#if HAS_MASK
#if FAULT == 3
  const int mask_head = 0;
#else
  const int mask_head = head % mask_ne2;
#endif
  const global char* mask_row =
      (const global char*)mask_void + mask_offset + (batch % mask_ne3) * mask_nb3 + mask_head * mask_nb2 + row * mask_nb1;
#endif
  const float slope = get_alibi_slope(max_bias, head, n_head_log2, m0, m1);
  const int pos = n_kv - n_q + row;

  float m = -INFINITY, l = 0.0f;
#if HAS_SINKS
  const float sink = ((const global float*)((const global char*)sinks_void + sinks_offset))[head];
  m = sink;
#endif
  float acc[DK];
  for (int d = 0; d < DK; ++d) acc[d] = 0.0f;
  for (int j = 0; j < n_kv; ++j) {
    if (is_causal && j > pos) break;
    const global float* k_row = (const global float*)(k_base + j * k_nb1);
    const global float* v_row = (const global float*)(v_base + j * v_nb1);
    float s = 0.0f;
    for (int d = 0; d < DK; ++d) s += q_priv[d] * ROUNDED(k_row[d]);
    s *= scale;
#if FAULT != 1
    if (logit_softcap > 0.0f) s = logit_softcap * tanh(s / logit_softcap);
#endif
#if HAS_MASK
#if FAULT == 2
    s += MASK_AT(mask_row, j) - (max_bias > 0.0f ? slope : 0.0f) * (float)abs(pos - j);
#else
    s += slope * MASK_AT(mask_row, j);
#endif
#endif
    if (s == -INFINITY) continue;
    const float m_new = fmax(m, s);
    const float correction = exp(m - m_new);
    const float w = exp(s - m_new);
    l = l * correction + w;
    for (int d = 0; d < DK; ++d) acc[d] = acc[d] * correction + w * v_row[d];
    m = m_new;
  }
#if HAS_SINKS
  l += exp(sink - m);
#endif
  global float* o_row = (global float*)((global char*)o_void + o_offset + batch * o_nb3 + row * o_nb2 + head * o_nb1);
  for (int d = 0; d < DK; ++d) o_row[d] = acc[d] / l;
}

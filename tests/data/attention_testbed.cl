/* A deliberately simple attention kernel (one work-item per query row) with
 * planted faults, for attn-tune's own tests: every failure the sweep must
 * survive and record has a FAULT value here.
 *   FAULT 0 correct            3 leaves the last query row unwritten
 *         1 does not compile   4 never finishes (watchdog -> timeout)
 *         2 wrong result       5 writes far out of bounds (crash)
 *         6 output depends on how often it ran (nondeterministic across runs)
 * REPEAT > 1 recomputes the scores that many times: the same result, more work.
 */
#include "common/attn_params.h"

#ifndef FAULT
#define FAULT 0
#endif
#ifndef REPEAT
#define REPEAT 1
#endif
#ifndef WG
#define WG 16
#endif
#ifndef DK
#define DK 64
#endif

#if FAULT == 1
#error "planted compile failure (FAULT=1)"
#endif

__kernel void testbed_attention(__global const float* q, __global const half* k, __global const half* v,
                                __global const half* mask, __global const float* sinks, __global float* o,
                                __global float* ws, const attn_params p) {
  const int i = get_global_id(0);
  const int h = get_group_id(1);
  const int b = get_group_id(2);
  if (i >= p.Nq) return;
#if FAULT == 3
  if (i == p.Nq - 1) return;
#endif
#if FAULT == 4
  for (volatile int spin = 0; spin >= 0; spin += (spin < 0)) {}
#endif
  const int hk = h / p.q_per_kv;
  const int pos = p.kv_offset + i;
  __global const float* qr = q + ((size_t)(b * p.Hq + h) * p.Nq + i) * DK;
  __global const half* kb = k + (size_t)(b * p.Hkv + hk) * p.Nkv * DK;
  __global const half* vb = v + (size_t)(b * p.Hkv + hk) * p.Nkv * DK;
  float slope = 0.0f;
  if (p.max_bias > 0.0f)
    slope = h < p.n_head_log2 ? pow(p.m0, (float)(h + 1)) : pow(p.m1, (float)(2 * (h - p.n_head_log2) + 1));

  float m = p.has_sinks ? sinks[h] : -INFINITY;
  float l = 0.0f;
  float acc[DK];
  for (int d = 0; d < DK; ++d) acc[d] = 0.0f;
  int last = p.Nkv - 1;
  if (p.causal) last = min(last, pos);
  if (p.window > 0) last = min(last, pos + p.window);
  const int first = p.window > 0 ? max(0, pos - p.window) : 0;
#if FAULT == 2
  last -= 1;
#endif
  for (int j = first; j <= last; ++j) {
    float s = 0.0f;
    for (int r = 0; r < REPEAT; ++r) {
      s = 0.0f;
      for (int d = 0; d < DK; ++d) s += qr[d] * vload_half(j * DK + d, kb);
    }
    s = s * p.scale - slope * (float)abs(pos - j);
    if (p.has_mask) s += vload_half((size_t)(b * p.Nq + i) * p.Nkv + j, mask);
    if (s == -INFINITY) continue;
    const float m_new = fmax(m, s);
    const float correction = exp(m - m_new);
    const float w = exp(s - m_new);
    l = l * correction + w;
    for (int d = 0; d < DK; ++d) acc[d] = acc[d] * correction + w * vload_half(j * DK + d, vb);
    m = m_new;
  }
  if (p.has_sinks) l += exp(sinks[h] - m);
  __global float* out = o + ((size_t)(b * p.Hq + h) * p.Nq + i) * DK;
  float extra = 0.0f;
#if FAULT == 6
  /* every run bumps a counter in the workspace, and the output carries it */
  if (i == 0 && h == 0 && b == 0) atomic_inc((__global volatile int*)ws);
  extra = 1e-6f * (float)(((__global volatile int*)ws)[0] & 7);
#endif
  for (int d = 0; d < DK; ++d) out[d] = acc[d] / l + extra;
#if FAULT == 5
  if (i == 0) o[(size_t)1 << 40] = 1.0f;
#endif
}

// CUDA twin of attention_testbed.cl: a naive attention kernel (one thread per
// query row, f32_f16 contract) with planted faults, for attn-tune's own tests
// and GPU demonstrations.
//   FAULT 0 correct             4 never finishes (watchdog -> timeout)
//         1 does not compile    5 writes far out of bounds (illegal address -> crashed)
//         2 wrong result        7 __trap() (crashed)
// SPILL=1 caps the kernel at 64 registers (__launch_bounds__(1024, 1)) while it
// keeps DK accumulators live: ptxas must spill, and `attn-tune compile` says so.
#include <cuda_fp16.h>

#include "common/attn_params.h"

#ifndef FAULT
#define FAULT 0
#endif
#ifndef SPILL
#define SPILL 0
#endif
#ifndef WG
#define WG 64
#endif
#ifndef DK
#define DK 64
#endif

#if FAULT == 1
#error "planted compile failure (FAULT=1)"
#endif

#if SPILL
#define TESTBED_BOUNDS __launch_bounds__(1024, 1)
#else
#define TESTBED_BOUNDS __launch_bounds__(WG)
#endif

extern "C" __global__ void TESTBED_BOUNDS testbed_attention(const float* q, const __half* k, const __half* v,
                                                           const __half* mask, const float* sinks, float* o, float* ws,
                                                           const attn_params p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  if (i >= p.Nq) return;
#if FAULT == 4
  // clock64() is volatile: the compiler cannot drop this loop as it drops an
  // empty spin (infinite loops without side effects may be assumed to end).
  const long long start = clock64();
  while (clock64() - start >= 0) {}
#endif
  const int hk = h / p.q_per_kv;
  const int pos = p.kv_offset + i;
  const float* qr = q + ((size_t)(b * p.Hq + h) * p.Nq + i) * DK;
  const __half* kb = k + (size_t)(b * p.Hkv + hk) * p.Nkv * DK;
  const __half* vb = v + (size_t)(b * p.Hkv + hk) * p.Nkv * DK;
  float slope = 0.0f;
  if (p.max_bias > 0.0f)
    slope = h < p.n_head_log2 ? powf(p.m0, (float)(h + 1)) : powf(p.m1, (float)(2 * (h - p.n_head_log2) + 1));

  const float neg_inf = __int_as_float(0xff800000);
  float m = p.has_sinks ? sinks[h] : neg_inf, l = 0.0f;
  float acc[DK];
#pragma unroll
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
#pragma unroll
    for (int d = 0; d < DK; ++d) s += qr[d] * __half2float(kb[(size_t)j * DK + d]);
    s = s * p.scale - slope * (float)abs(pos - j);
    if (p.has_mask) s += __half2float(mask[(size_t)(b * p.Nq + i) * p.Nkv + j]);
    if (s == neg_inf) continue;
    const float m_new = fmaxf(m, s);
    const float correction = __expf(m - m_new), w = __expf(s - m_new);
    l = l * correction + w;
#pragma unroll
    for (int d = 0; d < DK; ++d) acc[d] = acc[d] * correction + w * __half2float(vb[(size_t)j * DK + d]);
    m = m_new;
  }
  if (p.has_sinks) l += __expf(sinks[h] - m);
  float* out = o + ((size_t)(b * p.Hq + h) * p.Nq + i) * DK;
#pragma unroll
  for (int d = 0; d < DK; ++d) out[d] = acc[d] / l;
#if FAULT == 5
  if (i == 0) o[(size_t)1 << 40] = 1.0f;
#endif
#if FAULT == 7
  if (i == 0) __trap();
#endif
  (void)ws;
}

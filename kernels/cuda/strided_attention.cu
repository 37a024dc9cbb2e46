// Attention with a FlashAttention-2-style argument list: pointers, per-tensor
// strides (in elements) and scalars, no parameter struct; the CUDA twin of
// kernels/opencl/strided_attention.cl, bound by configs/strided_attention.json's
// `arguments`. One thread per query row, online softmax; Q and O float, K and
// V half (f32_f16). Causal is bottom-right aligned. No mask, sinks or ALiBi.
#include <cuda_fp16.h>

#ifndef BLOCK_M
#define BLOCK_M 16  // threads per block
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 64
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_M)
    strided_attention(const float* __restrict__ Q, const __half* __restrict__ K, const __half* __restrict__ V,
                      float* __restrict__ Out, int stride_qb, int stride_qh, int stride_qm, int stride_kb,
                      int stride_kh, int stride_kn, int stride_vb, int stride_vh, int stride_vn, int stride_ob,
                      int stride_oh, int stride_om, int nheads, int nheads_k, int seqlen_q, int seqlen_k,
                      float softmax_scale, int is_causal) {
  const int i = blockIdx.x * BLOCK_M + threadIdx.x;
  const int h = blockIdx.y;
  const int b = blockIdx.z;
  if (i >= seqlen_q) return;
  const int hk = h / (nheads / nheads_k);
  const float* q = Q + size_t(b) * stride_qb + size_t(h) * stride_qh + size_t(i) * stride_qm;
  const __half* k = K + size_t(b) * stride_kb + size_t(hk) * stride_kh;
  const __half* v = V + size_t(b) * stride_vb + size_t(hk) * stride_vh;

  const int last = is_causal ? min(seqlen_k - 1, seqlen_k - seqlen_q + i) : seqlen_k - 1;
  float m = -__int_as_float(0x7f800000), l = 0.f;  // -inf (NVRTC has no INFINITY macro)
  float acc[HEAD_DIM];
#pragma unroll
  for (int d = 0; d < HEAD_DIM; ++d) acc[d] = 0.f;
  for (int j = 0; j <= last; ++j) {
    float s = 0.f;
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * __half2float(k[size_t(j) * stride_kn + d]);
    s *= softmax_scale;
    const float m_new = fmaxf(m, s);
    const float correction = expf(m - m_new);
    const float w = expf(s - m_new);
    l = l * correction + w;
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * correction + w * __half2float(v[size_t(j) * stride_vn + d]);
    m = m_new;
  }
  float* o = Out + size_t(b) * stride_ob + size_t(h) * stride_oh + size_t(i) * stride_om;
#pragma unroll
  for (int d = 0; d < HEAD_DIM; ++d) o[d] = acc[d] / l;
}

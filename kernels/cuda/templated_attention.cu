// Attention written as a C++ template, the way most modern CUDA kernels are:
// the tile sizes, the head dimension and whether V is staged in shared memory
// are template parameters, not macros. configs/templated_attention.json names
// the instance to tune in its launch's entry ("templated_attention<BLOCK_M,
// BLOCK_N, D, true>"); attn-tune substitutes the configuration's values and
// NVRTC instantiates it and hands back its lowered name (nvrtcAddNameExpression).
// The template parameters are not called BLOCK_M...: the configuration also
// reaches the source as -D BLOCK_M=64, which would replace them.
//
// One thread per query row; K (and V when kStageV) tiles of kBlockN rows go
// through shared memory; online softmax. Layout bhsd; Q and O float, K and V
// half (f32_f16). Causal is bottom-right aligned. No mask, sinks or ALiBi.
#include <cuda_fp16.h>

template <int kBlockM, int kBlockN, int kHeadDim, bool kStageV>
__global__ void __launch_bounds__(kBlockM)
    templated_attention(const float* __restrict__ Q, const __half* __restrict__ K, const __half* __restrict__ V,
                        float* __restrict__ Out, int nheads, int nheads_k, int seqlen_q, int seqlen_k,
                        float softmax_scale, int is_causal) {
  __shared__ float ks[kBlockN][kHeadDim];
  __shared__ float vs[kStageV ? kBlockN : 1][kHeadDim];
  const int i = blockIdx.x * kBlockM + threadIdx.x;
  const int h = blockIdx.y;
  const int b = blockIdx.z;
  const int hk = h / (nheads / nheads_k);
  const bool active = i < seqlen_q;
  const __half* k = K + (size_t(b) * nheads_k + hk) * seqlen_k * kHeadDim;
  const __half* v = V + (size_t(b) * nheads_k + hk) * seqlen_k * kHeadDim;
  const int last = !active ? -1 : is_causal ? min(seqlen_k - 1, seqlen_k - seqlen_q + i) : seqlen_k - 1;

  float q[kHeadDim], acc[kHeadDim];
  const float* qi = Q + ((size_t(b) * nheads + h) * seqlen_q + (active ? i : 0)) * kHeadDim;
#pragma unroll
  for (int d = 0; d < kHeadDim; ++d) {
    q[d] = active ? qi[d] : 0.f;
    acc[d] = 0.f;
  }
  float m = -__int_as_float(0x7f800000), l = 0.f;  // -inf (NVRTC has no INFINITY macro)
  // Every thread walks every tile: the block shares the loads (and the barriers).
  for (int j0 = 0; j0 < seqlen_k; j0 += kBlockN) {
    __syncthreads();
    for (int t = threadIdx.x; t < kBlockN * kHeadDim; t += kBlockM) {
      const int r = t / kHeadDim, d = t % kHeadDim, j = j0 + r;
      ks[r][d] = j < seqlen_k ? __half2float(k[size_t(j) * kHeadDim + d]) : 0.f;
      if (kStageV) vs[r][d] = j < seqlen_k ? __half2float(v[size_t(j) * kHeadDim + d]) : 0.f;
    }
    __syncthreads();
    for (int r = 0; r < kBlockN && j0 + r <= last; ++r) {
      const int j = j0 + r;
      float s = 0.f;
#pragma unroll
      for (int d = 0; d < kHeadDim; ++d) s += q[d] * ks[r][d];
      s *= softmax_scale;
      const float m_new = fmaxf(m, s);
      const float correction = expf(m - m_new);
      const float w = expf(s - m_new);
      l = l * correction + w;
#pragma unroll
      for (int d = 0; d < kHeadDim; ++d)
        acc[d] = acc[d] * correction + w * (kStageV ? vs[r][d] : __half2float(v[size_t(j) * kHeadDim + d]));
      m = m_new;
    }
  }
  if (!active) return;
  float* o = Out + ((size_t(b) * nheads + h) * seqlen_q + i) * kHeadDim;
#pragma unroll
  for (int d = 0; d < kHeadDim; ++d) o[d] = acc[d] / l;
}

// Compiles with -D options and the shared params header (tests/cuda: NVRTC).
// BLOCK_M sizes a static shared-memory tile, so the define shows in ptxas'
// report (4 * BLOCK_M bytes smem); HEAD_DIM must be given: there is no default.
#include "common/attn_params.h"
#include <cuda_fp16.h>

#ifndef BLOCK_M
#define BLOCK_M 64
#endif
#ifndef HEAD_DIM
#error "HEAD_DIM must be defined (-D HEAD_DIM=...)"
#endif

extern "C" __global__ void scale_rows(const __half* __restrict__ x, float* __restrict__ y,
                                      attn_params p) {
  __shared__ float tile[BLOCK_M];
  const int i = blockIdx.x * BLOCK_M + threadIdx.x;
  const int n = p.B * p.Hq * p.Nq * HEAD_DIM;
  tile[threadIdx.x] = i < n ? __half2float(x[i]) * p.scale : 0.0f;
  __syncthreads();
  if (i < n) y[i] = tile[(threadIdx.x + 1) % BLOCK_M];
}

extern "C" __global__ void add_one(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

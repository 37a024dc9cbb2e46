// Constant and global memory, and barriers (tests/cuda: ptxas report with cmem banks).
__constant__ float table[64];
__device__ int gcount;
extern "C" __global__ void __launch_bounds__(1024, 1) pressure(const float* __restrict__ a, float* __restrict__ b, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = a[i * n + threadIdx.x];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = acc[i] * acc[(i + 1) % 96] + table[i & 63];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += acc[i] * acc[95 - i];
  b[threadIdx.x] = s; atomicAdd(&gcount, 1);
}
extern "C" __global__ void dyn(float* b) {
  extern __shared__ float sm[];
  sm[threadIdx.x] = 1.f; __syncthreads(); b[threadIdx.x] = sm[threadIdx.x ^ 1] + table[0];
}

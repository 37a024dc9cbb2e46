// Kernels written to need local memory (tests/cuda: ptxas resources).

// A private array indexed at run time cannot live in registers: a stack frame.
extern "C" __global__ void dynamic_index(const float* __restrict__ a, float* __restrict__ b, int k) {
  float local[256];
  for (int i = 0; i < 256; ++i) local[i] = a[i * k + threadIdx.x];
  b[threadIdx.x] = local[(threadIdx.x * 7 + k) & 255] + local[k & 255];
}

// 96 live values in a thread, with 1024 threads per block allowed (at most 64
// registers each): ptxas spills.
extern "C" __global__ void __launch_bounds__(1024, 1)
    register_pressure(const float* __restrict__ a, float* __restrict__ b, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = a[i * n + threadIdx.x];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[i] = acc[i] * acc[(i + 1) % 96] + 1.0f;
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += acc[i] * acc[95 - i];
  b[threadIdx.x] = s;
}

// Nothing to spill.
extern "C" __global__ void simple(float* b) { b[threadIdx.x] *= 2.0f; }

// Uses dynamic shared memory: launched with more than 48 KB the tuner must
// raise the kernel's limit first (tests/cuda, GPU).
extern "C" __global__ void reverse_block(const float* __restrict__ in, float* __restrict__ out,
                                         int per_thread) {
  extern __shared__ float buf[];
  const int n = blockDim.x * per_thread;
  for (int j = threadIdx.x; j < n; j += blockDim.x) buf[j] = in[blockIdx.x * n + j];
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x) out[blockIdx.x * n + j] = buf[n - 1 - j];
}

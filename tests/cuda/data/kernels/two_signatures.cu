// Two launches of one pipeline with different signatures: the first writes a
// buffer the second reads (tests/cuda/test_cuda_device_gpu.cpp).
extern "C" __global__ void fill(float* x, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value + i;
}

extern "C" __global__ void add_into(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

// Kernels that fault on purpose, for the GPU tests (tests/cuda): each leaves
// the CUDA context unusable, so each test runs it on a fresh process's device.
extern "C" __global__ void write_wild(float* p, unsigned long long offset) {
  // An address far outside any allocation: CUDA_ERROR_ILLEGAL_ADDRESS.
  p[offset] = 1.0f;
}

extern "C" __global__ void trap_now(float* p) {
  if (threadIdx.x == 0) __trap();
  p[threadIdx.x] = 0.0f;
}

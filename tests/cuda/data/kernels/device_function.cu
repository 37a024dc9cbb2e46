// A non-inlined device function and printf (tests/cuda: ptxas report of a device function).
__device__ __noinline__ float helper(float* x, int n) { float loc[32]; for (int i = 0; i < 32; ++i) loc[i] = x[i*n]; return loc[n & 31]; }
extern "C" __global__ void caller(float* b, int n) { b[threadIdx.x] = helper(b, n); }
extern "C" __global__ void prints(float* b, int n) { printf("%d %f\n", n, b[0]); }

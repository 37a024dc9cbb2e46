// Row-major matmul c = a b whose parameters are of every kind: ALPHA a real
// (-D ALPHA=0.5; the product is scaled by it and back, exactly for powers of
// two), SPLIT_K a boolean (-D SPLIT_K=1: two partial sums), ACC an identifier
// (-D ACC=double: the accumulator's type).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void matmul_kinds(__global const float* a, __global const float* b, __global float* c, int M, int N, int K) {
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= M || j >= N) return;
  ACC acc = 0;
#if SPLIT_K
  ACC second = 0;
  const int half_k = K / 2;
  for (int k = 0; k < half_k; ++k) acc += (ACC)a[i * K + k] * (ACC)b[k * N + j];
  for (int k = half_k; k < K; ++k) second += (ACC)a[i * K + k] * (ACC)b[k * N + j];
  acc += second;
#else
  for (int k = 0; k < K; ++k) acc += (ACC)a[i * K + k] * (ACC)b[k * N + j];
#endif
  c[i * N + j] = (float)((acc * ALPHA) / ALPHA);
}

// Row-major matmul c = a b, one work-item per element of c; `matmul_skips_last_k`
// is the planted wrong kernel (it leaves out the last term of every dot product).
__kernel void matmul(__global const float* a, __global const float* b, __global float* c, int M, int N, int K) {
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= M || j >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
  c[i * N + j] = acc;
}

__kernel void matmul_skips_last_k(__global const float* a, __global const float* b, __global float* c, int M, int N,
                                  int K) {
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= M || j >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K - 1; ++k) acc += a[i * K + k] * b[k * N + j];
  c[i * N + j] = acc;
}

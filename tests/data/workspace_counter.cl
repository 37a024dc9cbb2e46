// A kernel that keeps a counter in the workspace and never resets it: each run adds the counter's value to
// every element of c = a b, then increments it. Correct only when a configuration's first run starts with the
// workspace's first bytes zero, as the evaluator promises (docs/your-own-kernel.md).
__kernel void matmul_plus_counter(__global const float* a, __global const float* b, __global float* c, int M, int N,
                                  int K, __global const uint* counter) {
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= M || j >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
  c[i * N + j] = acc + (float)counter[0];
}

// The second launch of a run (a kernel's launches share its arguments).
__kernel void bump_counter(__global const float* a, __global const float* b, __global float* c, int M, int N, int K,
                           __global uint* counter) {
  if (get_global_id(0) == 0) counter[0] += 1;
}

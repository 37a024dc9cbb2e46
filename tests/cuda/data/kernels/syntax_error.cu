// Deliberately broken (tests/cuda): a statement lacks its ';' on line 5, so the
// compiler reports line 6.
extern "C" __global__ void broken(float* b, int n) {
  const int i = threadIdx.x;
  b[i] = n
  b[i + 1] = 2.0f;
}

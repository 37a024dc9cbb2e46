// Deliberately broken (tests/cuda): line 5 uses a name that is not declared.
extern "C" __global__ void uses_unknown(float* b) {
  const int i = threadIdx.x;
  b[i] = 1.0f;
  b[i] += not_declared_anywhere;
}

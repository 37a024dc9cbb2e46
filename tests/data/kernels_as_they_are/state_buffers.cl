/* Attention that keeps its softmax state in global memory, as standalone
 * kernels do: a running max M (which must hold -inf before a launch) and a
 * running sum L (0), one each per query row, and the output O accumulated in
 * place (read before it is written: it must hold 0). The keys are taken in
 * blocks of BLOCK_N, each block reading the state left by the previous one.
 *
 * Nothing here resets the state: the spec declares M and L with "role":
 * "inout", "init": "-inf" / "zeros", "reset": "every_run", and O with
 * "init": "zeros". Declared as plain inputs, a second run starts from the
 * first run's final max and sum, and verification catches it.
 *
 * q k v o: [B][H][N][D] float. One work-item per query row.
 */
#ifndef BLOCK_N
#define BLOCK_N 4
#endif

__kernel void attn_state(__global const float* q, __global const float* k, __global const float* v,
                         __global float* o, __global float* M, __global float* L,
                         const int rows, const int n_kv, const int head_dim, const float scale) {
  const int row = get_global_id(0);
  if (row >= rows) return;
  const int bh = row / n_kv;  /* square attention: N queries and N keys per (batch, head) */
  __global const float* qr = q + (size_t)row * head_dim;
  __global const float* kh = k + (size_t)bh * n_kv * head_dim;
  __global const float* vh = v + (size_t)bh * n_kv * head_dim;
  __global float* orow = o + (size_t)row * head_dim;
  for (int j0 = 0; j0 < n_kv; j0 += BLOCK_N) {
    float m = M[row], l = L[row];
    for (int j = j0; j < min(n_kv, j0 + BLOCK_N); ++j) {
      float s = 0.0f;
      for (int d = 0; d < head_dim; ++d) s += qr[d] * kh[(size_t)j * head_dim + d];
      s *= scale;
      const float m_new = fmax(m, s);
      const float c = exp(m - m_new), w = exp(s - m_new);
      l = l * c + w;
      for (int d = 0; d < head_dim; ++d) orow[d] = orow[d] * c + w * vh[(size_t)j * head_dim + d];
      m = m_new;
    }
    M[row] = m;
    L[row] = l;
  }
  /* O holds the unnormalised sum until here. */
  for (int d = 0; d < head_dim; ++d) orow[d] /= L[row];
}

/* Split-KV attention in three passes, each its own kernel with its own
 * signature, as inference engines write their newer flash-attention paths:
 *
 *   attn_prepass  q -> q_scaled (the workspace): Q times the softmax scale
 *   attn_split    one work-item per (query row, KV split): an online softmax
 *                 over the split's keys, left as partial outputs part_o
 *                 (unnormalised), part_m (the split's max) and part_l (its sum)
 *   attn_merge    one work-item per query row: the splits' partials merged
 *                 by their maxima into O
 *
 * Nothing passes between the launches but buffers: the spec binds the
 * workspace and the partial buffers to each launch's own argument list.
 *
 * q k v o: [B][H][N][D] float; part_o: [row][split][D]; part_m, part_l: [row][split].
 */
#ifndef SPLITS
#define SPLITS 2
#endif

__kernel void attn_prepass(__global const float* q, __global float* q_scaled, const int elements, const float scale) {
  const int i = get_global_id(0);
  if (i < elements) q_scaled[i] = q[i] * scale;
}

__kernel void attn_split(__global const float* q_scaled, __global const float* k, __global const float* v,
                         __global float* part_o, __global float* part_m, __global float* part_l, const int rows,
                         const int n_kv, const int head_dim) {
  const int item = get_global_id(0);
  if (item >= rows * SPLITS) return;
  const int row = item / SPLITS, split = item % SPLITS;
  const int bh = row / n_kv; /* square attention: N queries and N keys per (batch, head) */
  const int per_split = (n_kv + SPLITS - 1) / SPLITS;
  const int j0 = split * per_split, j1 = min(n_kv, j0 + per_split);
  __global const float* qr = q_scaled + (size_t)row * head_dim;
  __global const float* kh = k + (size_t)bh * n_kv * head_dim;
  __global const float* vh = v + (size_t)bh * n_kv * head_dim;
  __global float* po = part_o + (size_t)item * head_dim;
  for (int d = 0; d < head_dim; ++d) po[d] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  for (int j = j0; j < j1; ++j) {
    float s = 0.0f;
    for (int d = 0; d < head_dim; ++d) s += qr[d] * kh[(size_t)j * head_dim + d];
    const float m_new = fmax(m, s);
    const float c = exp(m - m_new), w = exp(s - m_new);
    l = l * c + w;
    for (int d = 0; d < head_dim; ++d) po[d] = po[d] * c + w * vh[(size_t)j * head_dim + d];
    m = m_new;
  }
  /* An empty split (more splits than keys) leaves max -inf and sum 0: the merge gives it no weight. */
  part_m[item] = m;
  part_l[item] = l;
}

__kernel void attn_merge(__global const float* part_o, __global const float* part_m, __global const float* part_l,
                         __global float* o, const int rows, const int head_dim) {
  const int row = get_global_id(0);
  if (row >= rows) return;
  float m = -INFINITY;
  for (int s = 0; s < SPLITS; ++s) m = fmax(m, part_m[row * SPLITS + s]);
  float l = 0.0f;
  for (int s = 0; s < SPLITS; ++s) l += part_l[row * SPLITS + s] * exp(part_m[row * SPLITS + s] - m);
  __global float* orow = o + (size_t)row * head_dim;
  for (int d = 0; d < head_dim; ++d) {
    float acc = 0.0f;
    for (int s = 0; s < SPLITS; ++s)
      acc += part_o[((size_t)row * SPLITS + s) * head_dim + d] * exp(part_m[row * SPLITS + s] - m);
    orow[d] = acc / l;
  }
}

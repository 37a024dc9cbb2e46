// An all-f32 attention kernel as an inference engine writes it, not to attn-tune's contract: GQA, bottom-right
// causal, a float mask per head, one sink logit per head and logit soft-capping (Gemma 2's), one work-item per
// query row. Verified as a custom operation whose buffers are bound to the attention reference's roles.
__kernel void attn_rows(__global const float* q, __global const float* k, __global const float* v,
                        __global const float* mask, __global const float* sinks, __global float* o, int rows,
                        int n_head, int n_head_kv, int n_q, int n_kv, float scale, float softcap) {
  const int row = get_global_id(0);  // (b, h, i), i fastest
  if (row >= rows) return;
  const int i = row % n_q, h = (row / n_q) % n_head, b = row / (n_q * n_head);
  const int hk = h / (n_head / n_head_kv);
  __global const float* qr = q + (size_t)row * HEAD_DIM;
  __global const float* kb = k + (size_t)(b * n_head_kv + hk) * n_kv * HEAD_DIM;
  __global const float* vb = v + (size_t)(b * n_head_kv + hk) * n_kv * HEAD_DIM;
  __global const float* mr = mask + (size_t)row * n_kv;
  const int last = n_kv - n_q + i;  // causal, aligned to the last key

  float m = sinks[h];
  for (int j = 0; j <= last; ++j) {
    float s = 0;
    for (int d = 0; d < HEAD_DIM; ++d) s += qr[d] * kb[j * HEAD_DIM + d];
    s = softcap * tanh(s * scale / softcap) + mr[j];
    m = fmax(m, s);
  }
  float acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) acc[d] = 0;
  float sum = exp(sinks[h] - m);
  for (int j = 0; j <= last; ++j) {
    float s = 0;
    for (int d = 0; d < HEAD_DIM; ++d) s += qr[d] * kb[j * HEAD_DIM + d];
    const float p = exp(softcap * tanh(s * scale / softcap) + mr[j] - m);
    sum += p;
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] += p * vb[j * HEAD_DIM + d];
  }
  for (int d = 0; d < HEAD_DIM; ++d) o[(size_t)row * HEAD_DIM + d] = acc[d] / sum;
}

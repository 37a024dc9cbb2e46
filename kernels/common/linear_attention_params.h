/* The run-time contract of every kernel of the "linear_attention" operation
 * (linear attention with the elu + 1 feature map, "Transformers are
 * RNNs", Katharopoulos et al. 2020).
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int fields, so
 * the struct has the same layout in all three and is passed by value as the
 * last kernel argument.
 *
 * Every linear-attention kernel entry point takes, in this order:
 *   q, k, v   float inputs [M][d] (row-major)
 *   o         float output [M][d]
 *   ws        float workspace, at least LINATT_WS_FLOATS(d, splits) floats
 *   p         this struct, by value
 *
 * Semantics (the CPU reference in tuner/ops/linear_attention_reference.cpp is
 * the definition), with phi(x) = elu(x) + 1 = (x > 0 ? x + 1 : exp(x)):
 *   S = sum_j phi(k_j)^T v_j    (d x d: S[a][c] = sum_j phi(k_j[a]) v_j[c])
 *   z = sum_j phi(k_j)          (d)
 *   o_i[c] = (phi(q_i) . S[:, c]) / (phi(q_i) . z)
 *
 * Workspace layout (floats). A "state" is S (d*d, row-major [a][c]) followed
 * by z (d): LINATT_STATE_FLOATS(d) floats.
 *   state 0            the reduced state the output pass reads
 *   state 1 + s        the partial state of row chunk s, s < splits (kernels
 *                      that reduce in one pass over all rows leave them unused)
 */
#ifndef ATTN_TUNE_LINEAR_ATTENTION_PARAMS_H
#define ATTN_TUNE_LINEAR_ATTENTION_PARAMS_H

#define LINATT_STATE_FLOATS(d) ((d) * (d) + (d))
#define LINATT_WS_FLOATS(d, splits) (((splits) + 1) * LINATT_STATE_FLOATS(d))

typedef struct linear_attention_params {
    int M;          /* rows (tokens) of q, k, v and o */
    int d;          /* feature dimension */
    int reserved0;  /* keep the size a multiple of 8 bytes */
    int reserved1;
} linear_attention_params;

#endif

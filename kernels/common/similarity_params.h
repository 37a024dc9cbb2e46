/* The run-time contract of every kernel of the "similarity" operation.
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int and float
 * fields, so the struct has the same layout in all three and is passed by
 * value as the last kernel argument.
 *
 * Every similarity kernel entry point takes, in this order:
 *   q     float [N][D]          queries
 *   k     float [M][D]          keys
 *   wq    float [proj_dim][D]   query projection: row f = head f / head_dim, feature f % head_dim
 *   wk    float [proj_dim][D]   key projection, same layout
 *   pk    float [M][proj_dim]   keys already projected (pk[j][f] = k_j . wk[f]); read only
 *                               when keys_ahead, else a 16-byte placeholder
 *   out   float [N][M]          similarities
 *   ws    float workspace of the spec's `workspace_bytes` (projections, per-head partials)
 *   p     this struct, by value
 *
 * Semantics (the CPU reference in tuner/ops/similarity_reference.cpp is the
 * definition):
 *   out[i][j] = 1/(heads * temperature) * sum_h (q_i . Wq[h]) . (k_j . Wk[h])
 *             = scale * sum_{f < proj_dim} (q_i . wq[f]) * (k_j . wk[f])
 * i.e. the mean over heads of the projected dot products, over temperature.
 */
#ifndef ATTN_TUNE_SIMILARITY_PARAMS_H
#define ATTN_TUNE_SIMILARITY_PARAMS_H

typedef struct similarity_params {
    int N;           /* queries */
    int M;           /* keys */
    int D;           /* input dimension of q and k */
    int heads;       /* projection heads */
    int head_dim;    /* features per head */
    int proj_dim;    /* heads * head_dim */
    float scale;     /* 1 / (heads * temperature) */
    int keys_ahead;  /* 1: pk holds the projected keys */
} similarity_params;

#endif

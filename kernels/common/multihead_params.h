/* The run-time contract of every kernel of the "multihead_attention" operation
 * (standard multi-head attention, and sliding-window attention as its
 * windowed case).
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int and float
 * fields, so the struct has the same layout in all three and is passed by
 * value as the last kernel argument.
 *
 * Every multihead kernel entry point takes, in this order:
 *   q, k, v   float inputs, layout [N][d_model] (row-major); head hd owns the
 *             columns [hd * d_k, (hd + 1) * d_k) of every row
 *   o         float output [N][d_model], heads concatenated the same way
 *   ws        float workspace of the spec's `workspace_bytes` (unused so far)
 *   p         this struct, by value
 *
 * Semantics (the CPU reference in tuner/ops/multihead_reference.cpp is the
 * definition), for every head hd and row i, with the head's slices q_i, k_j, v_j:
 *   keys attended: every j in [0, N), or |i - j| <= window when window > 0
 *   s_j = scale * (q_i . k_j)
 *   o_i = sum_j exp(s_j - max s) v_j / sum_j exp(s_j - max s)
 * With h = 1 and window = w this is sliding-window attention on an
 * [M][d] input; with window = 0, its multi-head attention.
 */
#ifndef ATTN_TUNE_MULTIHEAD_PARAMS_H
#define ATTN_TUNE_MULTIHEAD_PARAMS_H

typedef struct multihead_params {
    int N;           /* rows (tokens) of q, k, v and o */
    int d_model;     /* row length: h heads of d_k columns */
    int h;           /* heads */
    int d_k;         /* d_model / h */
    int window;      /* > 0: row i attends to key j only when |i - j| <= window */
    float scale;     /* softmax scale, 1/sqrt(d_k) unless the shape says otherwise */
    int reserved0;   /* keep the size a multiple of 8 bytes */
    int reserved1;
} multihead_params;

#endif

/* The run-time contract of every kernel of the "attention" operation.
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int and float
 * fields, so the struct has the same layout in all three and is passed by
 * value as the last kernel argument.
 *
 * Every attention kernel entry point takes, in this order:
 *   q, k, v      inputs, layout [B][H][N][D] (row-major, D fastest)
 *                Q has Hq heads and Nq rows, K/V have Hkv heads and Nkv rows
 *   mask         half [B][Nq][Nkv], additive, read only when has_mask
 *   sinks        float [Hq], one extra logit per query head, read only when has_sinks
 *   o            output [B][Hq][Nq][D]
 *   ws           float workspace of the spec's `workspace_bytes` (split-KV partials, ...)
 *   p            this struct, by value
 *
 * Element types follow the shape's dtype: f32_f16 = Q float, K/V half, O float;
 * f16 = all half; bf16 = all bfloat16 (raw 16-bit words).
 *
 * Semantics (the CPU reference in tuner/ops/attention_reference.cpp is the
 * definition): query row i sits at absolute position pos = kv_offset + i.
 * Key j is attended unless masked out by causal (j > pos), window
 * (|pos - j| > window when window > 0) or a -inf mask entry.
 *   s_j = scale * (q . k_j) + mask[b][i][j] - slope(h) * |pos - j|
 *   m   = max(max_j s_j, sink_h)           (sink only when has_sinks)
 *   o   = sum_j exp(s_j - m) v_j / (sum_j exp(s_j - m) + exp(sink_h - m))
 * slope(h) is ALiBi's (llama.cpp's form): zero when max_bias == 0, else
 *   h <  n_head_log2: m0^(h+1);   h >= n_head_log2: m1^(2(h - n_head_log2) + 1).
 * GQA: query head h reads KV head h / q_per_kv.
 */
#ifndef ATTN_TUNE_ATTN_PARAMS_H
#define ATTN_TUNE_ATTN_PARAMS_H

typedef struct attn_params {
    int B;            /* batch (sequences) */
    int Hq;           /* query heads */
    int Hkv;          /* key/value heads; Hq % Hkv == 0 */
    int Nq;           /* query rows per sequence (1 for decode) */
    int Nkv;          /* key/value rows per sequence */
    int D;            /* head dimension of q, k and v */
    int q_per_kv;     /* Hq / Hkv */
    int kv_offset;    /* absolute position of query row 0: Nkv - Nq */
    int causal;       /* 1: key j attended only when j <= pos */
    int window;       /* > 0: key j attended only when |pos - j| <= window */
    int has_mask;     /* 1: add mask[b][i][j] */
    int has_sinks;    /* 1: sinks[h] joins the softmax denominator */
    float scale;      /* softmax scale, usually 1/sqrt(D) */
    float max_bias;   /* ALiBi; 0 = off */
    float m0;         /* ALiBi slope base for the first n_head_log2 heads */
    float m1;         /* ALiBi slope base for the rest */
    int n_head_log2;  /* largest power of two <= Hq */
    int reserved0;    /* keeps the size a multiple of 8 bytes */
} attn_params;

#endif

/* The run-time contract of every kernel of the "attention" operation.
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int and float
 * fields, so the struct has the same layout in all three and is passed by
 * value as the last kernel argument.
 *
 * Every attention kernel entry point takes, in this order:
 *   q, k, v      inputs, layout [B][H][N][D] (row-major, D fastest)
 *                Q has Hq heads and Nq rows, K/V have Hkv heads and Nkv rows
 *   mask         half (or float: mask_f32) [B][Nq][Nkv], additive, read only
 *                when has_mask; per head or shared by the batch with the
 *                shape's mask_layout: element (b, h, i, j) sits at
 *                b * stride_mask_b + h * stride_mask_h + i * stride_mask_n + j
 *   sinks        float [Hq], one extra logit per query head, read only when has_sinks
 *   o            output [B][Hq][Nq][D]
 *   ws           float workspace of the spec's `workspace_bytes` (split-KV partials, ...)
 *   p            this struct, by value
 *
 * Element types follow the shape's dtype: f32_f16 = Q float, K/V half, O float;
 * f32 = all float; f16 = all half; bf16 = all bfloat16 (raw 16-bit words).
 *
 * Semantics (the CPU reference in tuner/ops/attention_reference.cpp is the
 * definition): query row i sits at absolute position pos = kv_offset + i.
 * Key j is attended unless masked out by causal (j > pos), window
 * (|pos - j| > window when window > 0) or a -inf mask entry.
 *   t_j = scale * (q . k_j), soft-capped when softcap > 0: softcap * tanh(t_j / softcap)
 *   s_j = t_j + mask[b][h][i][j] - slope(h) * |pos - j|      (alibi_mode 0, distance)
 *   s_j = t_j + slope(h) * mask[b][h][i][j]                  (alibi_mode 1, mask_scaled:
 *         the mask holds -|pos - j| where not -inf; slope(h) = 1 when max_bias == 0)
 *   m   = max(max_j s_j, sink_h)           (sink only when has_sinks)
 *   o   = sum_j exp(s_j - m) v_j / (sum_j exp(s_j - m) + exp(sink_h - m))
 * slope(h) is ALiBi's (llama.cpp's form): when max_bias == 0, 0 (distance) or 1 (mask_scaled), else
 *   h <  n_head_log2: m0^(h+1);   h >= n_head_log2: m1^(2(h - n_head_log2) + 1).
 * GQA: query head h reads KV head h / q_per_kv.
 *
 * Layouts (the shape's `layout`, `page_size`; fields at the end of the struct,
 * which kernels written for [B][H][N][D] ignore): element (b, h, i, d) of q
 * and o sits at
 *   start_q(b) + h * stride_q_h + i * stride_q_n + d
 * with start_q(b) = b * stride_q_b, or cu_seqlens_q[b] * stride_q_n for the
 * packed layout thd. k and v alike with stride_k_*, except that in a paged
 * pool ([num_pages][page_size][Hkv][D]) key row j of sequence b sits at
 *   block_table[b * max_pages + j / page_size] * stride_k_page
 *     + (j % page_size) * stride_k_n + h * stride_k_h + d.
 * thd and paged shapes pass three int32 buffers after o (before ws):
 *   cu_seqlens_q [B + 1], cu_seqlens_k [B + 1]  sequence b's rows are
 *                cu[b] .. cu[b + 1] - 1 (its own Nq and Nkv; row i sits at
 *                position kv_offset_b + i, kv_offset_b = its Nkv - its Nq)
 *   block_table  [B][max_pages] page numbers (scattered; -1 past the sequence)
 * Nq and Nkv are then the longest sequence's, as are the mask's dimensions.
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
    int layout;       /* 0 bhsd, 1 bshd, 2 thd */
    int stride_q_b;   /* q and o, in elements; 0 with thd */
    int stride_q_h;
    int stride_q_n;
    int stride_k_b;   /* k and v, in elements; 0 with thd or a paged pool */
    int stride_k_h;
    int stride_k_n;
    int page_size;    /* > 0: k and v are a paged pool */
    int num_pages;    /* pages in the pool */
    int max_pages;    /* block table columns: ceil(Nkv / page_size) */
    int stride_k_page; /* elements between pages: page_size * Hkv * D */
    int reserved1;    /* keeps the size a multiple of 8 bytes */
    /* mask forms, ALiBi convention and soft-capping (appended: kernels that
     * take none of them ignore these) */
    float softcap;    /* > 0: s = softcap * tanh(s / softcap), before mask and ALiBi */
    int alibi_mode;   /* 0 distance: s -= slope * |pos - j|; 1 mask_scaled: s += slope * mask[j] */
    int mask_f32;     /* 1: mask elements are float; 0: half */
    int stride_mask_b; /* mask, in elements; 0 where it is shared by the batch */
    int stride_mask_h; /* 0 where it is shared by the heads */
    int stride_mask_n; /* Nkv */
} attn_params;

#endif

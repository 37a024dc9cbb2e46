/* The run-time contract of every kernel of the "deformable_attention" operation:
 * Deformable-DETR's multi-scale deformable attention, forward.
 *
 * Shared by the host (C++), OpenCL C and CUDA C++: only 4-byte int fields, so
 * the struct has the same layout in all three and is passed by value as the
 * last kernel argument.
 *
 * Every deformable attention kernel entry point takes, in this order:
 *   value  float [B][S][heads][channels]            the levels' maps, level l at rows
 *                                                   [level_start[l], level_start[l] + H_l*W_l),
 *                                                   pixel (y, x) at row level_start[l] + y*W_l + x
 *   loc    float [B][Nq][heads][levels][points][2]  sampling locations in [0, 1]: (x, y)
 *   attn   float [B][Nq][heads][levels][points]     attention weights
 *   out    float [B][Nq][heads * channels]
 *   ws     float workspace of the spec's `workspace_bytes` (unused so far)
 *   p      this struct, by value
 *
 * Semantics (the CPU reference in tuner/ops/deformable_reference.cpp is the
 * definition; it is ms_deform_attn_core_pytorch, i.e. grid_sample with
 * align_corners=False and zero padding):
 *   x = loc_x * W_l - 0.5,  y = loc_y * H_l - 0.5   (pixel centres at integers)
 *   sample = bilinear interpolation of value_l[., h, c] at (y, x), pixels
 *            outside the map counting as 0
 *   out[b][q][h*channels + c] = sum_{l, p} attn[b][q][h][l][p] * sample
 */
#ifndef ATTN_TUNE_DEFORMABLE_PARAMS_H
#define ATTN_TUNE_DEFORMABLE_PARAMS_H

#define DEFORMABLE_MAX_LEVELS 5

typedef struct deformable_params {
    int B;          /* images */
    int Nq;         /* queries per image */
    int heads;
    int channels;   /* per head */
    int levels;     /* 1 .. DEFORMABLE_MAX_LEVELS */
    int points;     /* sampling points per (query, head, level) */
    int S;          /* values per image and head: sum of H_l * W_l */
    int reserved0;  /* keeps the arrays 8-byte aligned */
    int level_h[DEFORMABLE_MAX_LEVELS];      /* H_l; 0 past `levels` */
    int level_w[DEFORMABLE_MAX_LEVELS];      /* W_l */
    int level_start[DEFORMABLE_MAX_LEVELS];  /* first row of level l in value */
    int reserved1;  /* keeps the size a multiple of 8 bytes */
} deformable_params;

#endif

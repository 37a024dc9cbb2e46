// The attention operation's shape, typed (see kernels/common/attn_params.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/attn_params.h"

namespace attn {

enum class AttnDtype { F32_F16 = 0, F16 = 1, BF16 = 2, F32 = 3 };

// Which dimensions the mask has; the others are broadcast: [B][Nq][Nkv] (one
// per sequence, shared by its heads), [B][Hq][Nq][Nkv], [Hq][Nq][Nkv] (per
// head, shared by the batch), [Nq][Nkv] (one for everything).
enum class MaskLayout { BQK = 0, BHQK = 1, HQK = 2, QK = 3 };

// How ALiBi enters the score: distance adds -slope * |pos - j|; mask_scaled
// (llama.cpp's, the mask holding -|pos - j|) adds slope * mask[j], slope 1 without ALiBi.
enum class AlibiMode { Distance = 0, MaskScaled = 1 };

// How q, k, v and o are laid out: [B][H][N][D], [B][N][H][D], or packed
// variable-length tokens [T][H][D] with cu_seqlens offsets.
enum class AttnLayout { BHSD = 0, BSHD = 1, THD = 2 };

// Element strides of one tensor: (b, h, n, d=1); b is 0 when sequences start at offsets (thd, pages).
struct TensorStrides {
  long long b = 0, h = 0, n = 0;
};

struct AttentionShape {
  AttnDtype dtype = AttnDtype::F32_F16;
  int B = 1, Hq = 1, Hkv = 1, Nq = 1, Nkv = 1, D = 64;
  bool causal = false;
  int window = 0;
  bool mask = false;
  bool mask_f32 = false;  // mask elements float instead of half
  MaskLayout mask_layout = MaskLayout::BQK;
  bool sinks = false;
  double max_bias = 0;
  AlibiMode alibi_mode = AlibiMode::Distance;
  double softcap = 0;  // > 0: scaled scores soft-capped, softcap * tanh(s / softcap), before mask and ALiBi
  double scale = 0;
  AttnLayout layout = AttnLayout::BHSD;
  // thd: listed lengths, sequence b takes entry (sequence_offset + b) modulo the list's
  // size; empty: drawn from the run's seed (q in [1, Nq], k in [q, Nkv]).
  std::vector<int> seqlens_q, seqlens_k;
  int page_size = 0;  // > 0: K/V live in a pool of pages read through a block table
  int num_pages = 0;  // the pool's pages; 0: twice what the batch can need
  // The sequences are those at sequence_offset, sequence_offset + 1, ... of a
  // larger batch, drawn alike (the checks draw one sequence of a batch alone).
  int sequence_offset = 0;

  static AttentionShape from_json(const nlohmann::json& fields);
  attn_params params() const;

  bool paged() const { return page_size > 0; }
  // thd and paged pools add the int32 buffers cu_seqlens_q, cu_seqlens_k and block_table.
  bool has_sequence_buffers() const { return layout == AttnLayout::THD || paged(); }
  int max_pages() const { return paged() ? (Nkv + page_size - 1) / page_size : 0; }
  int pool_pages() const { return !paged() ? 0 : num_pages > 0 ? num_pages : 2 * B * max_pages(); }
  TensorStrides q_strides() const;  // also o's
  TensorStrides kv_strides() const;
  long long page_stride() const { return (long long)page_size * Hkv * D; }

  int kv_offset() const { return Nkv - Nq; }
  std::size_t q_elements() const { return std::size_t(B) * Hq * Nq * D; }
  std::size_t kv_elements() const { return std::size_t(B) * Hkv * Nkv * D; }
  std::size_t mask_elements() const;
  // Element strides of the mask over (b, h, i); 0 on a broadcast dimension (j's is 1).
  TensorStrides mask_strides() const;
  std::size_t mask_index(int b, int h, int i, int j) const {
    const TensorStrides m = mask_strides();
    return std::size_t(b * m.b + h * m.h + i * m.n + j);
  }
  std::size_t mask_bytes_per_element() const { return mask_f32 ? 4 : 2; }
  // Key range row i of a sequence of NQ queries over NK keys attends to before
  // the mask: [first, last], empty when first > last.
  int first_key(int i) const { return first_key(i, Nq, Nkv); }
  int last_key(int i) const { return last_key(i, Nq, Nkv); }
  int first_key(int i, int nq, int nk) const;
  int last_key(int i, int nq, int nk) const;
  // (query, key) pairs attended by one head of a sequence, ignoring -inf mask entries: the FLOP count's basis.
  double attended_pairs() const { return attended_pairs(Nq, Nkv); }
  double attended_pairs(int nq, int nk) const;
  double alibi_slope(int head) const;
};

const char* dtype_name(AttnDtype dtype);
const char* layout_name(AttnLayout layout);
const char* mask_layout_name(MaskLayout layout);
const char* alibi_mode_name(AlibiMode mode);
std::size_t q_bytes_per_element(AttnDtype dtype);  // also O's
std::size_t kv_bytes_per_element(AttnDtype dtype);

}  // namespace attn

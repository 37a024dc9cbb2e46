// Where the attention operation's elements lie for one problem: each
// sequence's lengths (drawn from the seed or listed, with thd), the
// cu_seqlens offsets, the paged pool's block table, and the element index of
// every logical (b, h, row, d) in q/o and k/v. The reference and the input
// fill read through it, so every layout computes the same mathematics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tuner/ops/attention_shape.hpp"

namespace attn {

class AttentionLayout {
 public:
  AttentionLayout(const AttentionShape& shape, std::uint64_t seed);

  int q_len(int b) const { return q_len_[std::size_t(b)]; }
  int k_len(int b) const { return k_len_[std::size_t(b)]; }
  const std::vector<std::int32_t>& cu_seqlens_q() const { return cu_q_; }
  const std::vector<std::int32_t>& cu_seqlens_k() const { return cu_k_; }
  const std::vector<std::int32_t>& block_table() const { return table_; }  // [B][max_pages], -1 unused
  std::size_t total_q() const { return std::size_t(cu_q_.back()); }
  std::size_t total_k() const { return std::size_t(cu_k_.back()); }

  // Elements of the q/o and k/v buffers (k/v: the whole pool when paged).
  std::size_t q_elements() const;
  std::size_t kv_elements() const;
  // Elements of k/v that hold keys (the logical size, what a kernel reads).
  std::size_t kv_used_elements() const { return total_k() * std::size_t(s_.Hkv) * std::size_t(s_.D); }

  std::size_t q_index(int b, int h, int i, int d) const;
  std::size_t k_index(int b, int h, int j, int d) const;

  // Logical rows (b, h, i), sequence after sequence, head-major inside one.
  std::size_t rows() const { return total_q() * std::size_t(s_.Hq); }
  void row_coordinates(std::size_t row, int& b, int& h, int& i) const;
  std::size_t first_row(int b) const { return std::size_t(cu_q_[std::size_t(b)]) * std::size_t(s_.Hq); }

 private:
  AttentionShape s_;
  std::vector<int> q_len_, k_len_;
  std::vector<std::int32_t> cu_q_, cu_k_, table_;
};

}  // namespace attn

#include "tuner/ops/attention_layout.hpp"

#include <algorithm>
#include <numeric>

#include "tuner/core/rng.hpp"

namespace attn {
namespace {

int listed(const std::vector<int>& lengths, int sequence) { return lengths[std::size_t(sequence) % lengths.size()]; }

// An integer in [lo, hi] from U.
int between(UniformStream& u, int lo, int hi) { return std::min(hi, lo + int(u.next(0, 1) * (hi - lo + 1))); }

}  // namespace

AttentionLayout::AttentionLayout(const AttentionShape& shape, std::uint64_t seed) : s_(shape) {
  cu_q_.push_back(0);
  cu_k_.push_back(0);
  for (int b = 0; b < s_.B; ++b) {
    const int sequence = s_.sequence_offset + b;
    int nq = s_.Nq, nk = s_.Nkv;
    if (s_.layout == AttnLayout::THD) {
      if (!s_.seqlens_q.empty()) {
        nq = listed(s_.seqlens_q, sequence);
        nk = s_.seqlens_k.empty() ? nq + s_.kv_offset() : listed(s_.seqlens_k, sequence);
      } else {
        UniformStream u(stream_seed(seed, "seqlen", std::uint64_t(sequence)));
        nq = between(u, 1, s_.Nq);
        nk = between(u, nq, s_.Nkv);
      }
    }
    q_len_.push_back(nq);
    k_len_.push_back(nk);
    cu_q_.push_back(cu_q_.back() + nq);
    cu_k_.push_back(cu_k_.back() + nk);
  }
  if (!s_.paged()) return;

  // Pages handed out from a seeded permutation of the pool: never in order,
  // and half the pool (by default) is never handed out at all.
  std::vector<std::int32_t> pool(std::size_t(s_.pool_pages()));
  std::iota(pool.begin(), pool.end(), 0);
  UniformStream u(stream_seed(seed, "pages", std::uint64_t(s_.sequence_offset)));
  for (std::size_t k = pool.size(); k > 1; --k) std::swap(pool[k - 1], pool[std::size_t(u.bits() % k)]);
  if (pool.size() > 1 && std::is_sorted(pool.begin(), pool.end())) std::swap(pool[0], pool[1]);
  table_.assign(std::size_t(s_.B) * std::size_t(s_.max_pages()), -1);
  std::size_t next = 0;
  for (int b = 0; b < s_.B; ++b)
    for (int p = 0; p * s_.page_size < k_len_[std::size_t(b)]; ++p)
      table_[std::size_t(b) * std::size_t(s_.max_pages()) + std::size_t(p)] = pool[next++];
}

std::size_t AttentionLayout::q_elements() const { return total_q() * std::size_t(s_.Hq) * std::size_t(s_.D); }

std::size_t AttentionLayout::kv_elements() const {
  if (s_.paged()) return std::size_t(s_.pool_pages()) * std::size_t(s_.page_stride());
  return total_k() * std::size_t(s_.Hkv) * std::size_t(s_.D);
}

std::size_t AttentionLayout::q_index(int b, int h, int i, int d) const {
  const TensorStrides st = s_.q_strides();
  const long long start = s_.layout == AttnLayout::THD ? cu_q_[std::size_t(b)] * st.n : b * st.b;
  return std::size_t(start + h * st.h + i * st.n + d);
}

std::size_t AttentionLayout::k_index(int b, int h, int j, int d) const {
  const TensorStrides st = s_.kv_strides();
  if (s_.paged()) {
    const long long page = table_[std::size_t(b) * std::size_t(s_.max_pages()) + std::size_t(j / s_.page_size)];
    return std::size_t(page * s_.page_stride() + (j % s_.page_size) * st.n + h * st.h + d);
  }
  const long long start = s_.layout == AttnLayout::THD ? cu_k_[std::size_t(b)] * st.n : b * st.b;
  return std::size_t(start + h * st.h + j * st.n + d);
}

void AttentionLayout::row_coordinates(std::size_t row, int& b, int& h, int& i) const {
  const std::size_t token = row / std::size_t(s_.Hq);
  b = int(std::upper_bound(cu_q_.begin(), cu_q_.end(), std::int32_t(token)) - cu_q_.begin()) - 1;
  const std::size_t local = row - first_row(b);
  h = int(local / std::size_t(q_len(b)));
  i = int(local % std::size_t(q_len(b)));
}

}  // namespace attn

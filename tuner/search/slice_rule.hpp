// Which arm of a portfolio proposes next: arms take turns in slices of a fixed
// number of evaluations, and an arm whose slice found a new overall best keeps
// the turn for another slice (it is making progress; the others wait).
#pragma once

#include <cstddef>

namespace attn {

class SliceRule {
 public:
  SliceRule(std::size_t arms, long long slice, bool keep_on_progress)
      : arms_(arms), slice_(slice), keep_on_progress_(keep_on_progress) {}

  // The arm whose turn it is.
  std::size_t current() const { return current_; }
  // One evaluation of the current arm was told; IMPROVED: it was a new overall best.
  void told(bool improved) {
    improved_ = improved_ || improved;
    if (++used_ < slice_) return;
    if (!(keep_on_progress_ && improved_)) current_ = (current_ + 1) % arms_;
    used_ = 0;
    improved_ = false;
  }
  // The current arm has nothing to propose: the next one's turn at once.
  void skip() {
    current_ = (current_ + 1) % arms_;
    used_ = 0;
    improved_ = false;
  }

 private:
  std::size_t arms_;
  long long slice_;
  bool keep_on_progress_;
  std::size_t current_ = 0;
  long long used_ = 0;
  bool improved_ = false;
};

}  // namespace attn

// A small extremely randomized trees regressor (Geurts et al. 2006): each
// split takes the best of one random threshold per feature. The spread of the
// trees' predictions is the uncertainty a surrogate search needs.
#pragma once

#include <vector>

#include "tuner/core/rng.hpp"

namespace attn {

class ExtraTrees {
 public:
  struct Prediction {
    double mean = 0;
    double stddev = 0;  // across the trees
  };

  ExtraTrees(int trees, int min_leaf) : trees_(trees), min_leaf_(min_leaf) {}

  // X: one row of features per sample; Y: its target. Replaces any earlier fit.
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, UniformStream& rng);
  Prediction predict(const std::vector<double>& features) const;

 private:
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0;
    int left = -1, right = -1;
    double value = 0;  // a leaf's mean
  };
  using Tree = std::vector<Node>;
  int grow(Tree& tree, const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           std::vector<std::size_t>& rows, std::size_t begin, std::size_t end, UniformStream& rng) const;

  int trees_;
  int min_leaf_;
  std::vector<Tree> forest_;
};

}  // namespace attn

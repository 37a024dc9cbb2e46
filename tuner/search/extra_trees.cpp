#include "tuner/search/extra_trees.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {
namespace {

// Sum of squared deviations from the mean, from running sums.
double squared_error(double sum, double sum_sq, double n) { return n > 0 ? sum_sq - sum * sum / n : 0; }

}  // namespace

void ExtraTrees::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, UniformStream& rng) {
  forest_.assign(static_cast<std::size_t>(trees_), {});
  if (x.empty()) return;
  for (auto& tree : forest_) {
    std::vector<std::size_t> rows(x.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    grow(tree, x, y, rows, 0, rows.size(), rng);
  }
}

int ExtraTrees::grow(Tree& tree, const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                     std::vector<std::size_t>& rows, std::size_t begin, std::size_t end, UniformStream& rng) const {
  const int index = static_cast<int>(tree.size());
  tree.emplace_back();
  double sum = 0, sum_sq = 0;
  for (std::size_t i = begin; i < end; ++i) {
    sum += y[rows[i]];
    sum_sq += y[rows[i]] * y[rows[i]];
  }
  const auto n = static_cast<double>(end - begin);
  tree[static_cast<std::size_t>(index)].value = sum / n;
  if (end - begin < 2 * static_cast<std::size_t>(min_leaf_) || squared_error(sum, sum_sq, n) <= 1e-12) return index;

  // One random threshold per feature; keep the one that reduces the squared error most.
  int best_feature = -1;
  double best_threshold = 0, best_error = std::numeric_limits<double>::infinity();
  const std::size_t features = x[rows[begin]].size();
  for (std::size_t f = 0; f < features; ++f) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = begin; i < end; ++i) {
      lo = std::min(lo, x[rows[i]][f]);
      hi = std::max(hi, x[rows[i]][f]);
    }
    if (!(hi > lo)) continue;
    const double threshold = rng.next(lo, hi);
    double ls = 0, lq = 0, ln = 0, rs = 0, rq = 0, rn = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const double v = y[rows[i]];
      if (x[rows[i]][f] <= threshold) {
        ls += v;
        lq += v * v;
        ++ln;
      } else {
        rs += v;
        rq += v * v;
        ++rn;
      }
    }
    if (ln < min_leaf_ || rn < min_leaf_) continue;
    const double error = squared_error(ls, lq, ln) + squared_error(rs, rq, rn);
    if (error < best_error) {
      best_feature = static_cast<int>(f);
      best_threshold = threshold;
      best_error = error;
    }
  }
  if (best_feature < 0) return index;

  const auto f = static_cast<std::size_t>(best_feature);
  const auto middle =
      std::partition(rows.begin() + static_cast<std::ptrdiff_t>(begin), rows.begin() + static_cast<std::ptrdiff_t>(end),
                     [&](std::size_t r) { return x[r][f] <= best_threshold; });
  const auto split = static_cast<std::size_t>(middle - rows.begin());
  const int left = grow(tree, x, y, rows, begin, split, rng);
  const int right = grow(tree, x, y, rows, split, end, rng);
  Node& node = tree[static_cast<std::size_t>(index)];
  node.feature = best_feature;
  node.threshold = best_threshold;
  node.left = left;
  node.right = right;
  return index;
}

ExtraTrees::Prediction ExtraTrees::predict(const std::vector<double>& features) const {
  if (forest_.empty() || forest_.front().empty()) return {};
  double sum = 0, sum_sq = 0;
  for (const auto& tree : forest_) {
    std::size_t node = 0;
    while (tree[node].feature >= 0)
      node = static_cast<std::size_t>(features[static_cast<std::size_t>(tree[node].feature)] <= tree[node].threshold
                                          ? tree[node].left
                                          : tree[node].right);
    sum += tree[node].value;
    sum_sq += tree[node].value * tree[node].value;
  }
  const auto n = static_cast<double>(forest_.size());
  const double mean = sum / n;
  return {mean, std::sqrt(std::max(0.0, sum_sq / n - mean * mean))};
}

}  // namespace attn

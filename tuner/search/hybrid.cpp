#include "tuner/search/hybrid.hpp"

#include <algorithm>

namespace attn {
namespace {

constexpr int kChildTries = 64;

}  // namespace

void HybridSearch::restart() {
  population_.clear();
  best_.reset();
  local_.clear();
  epoch_told_ = 0;
  since_improvement_ = 0;
  ++restarts_;
}

std::optional<Config> HybridSearch::next() {
  if (knobs_.stall > 0 && since_improvement_ >= knobs_.stall && pending_ == 0) restart();
  std::optional<Config> c;
  if (static_cast<std::size_t>(epoch_told_) + pending_ >= knobs_.initial) {
    while (!c && !local_.empty()) {
      if (!proposed(local_.back())) c = local_.back();
      local_.pop_back();
    }
    if (!c) c = child();
  }
  if (!c) c = random_unproposed();
  if (c) ++pending_;
  return c;
}

void HybridSearch::observed(const Observation& observation) {
  if (pending_ > 0) --pending_;
  ++epoch_told_;
  population_.push_back(observation);
  std::stable_sort(population_.begin(), population_.end(),
                   [](const Observation& a, const Observation& b) { return better(a.cost, b.cost); });
  if (population_.size() > knobs_.population) population_.pop_back();
  if (!best_ || better(observation.cost, best_->cost)) {
    best_ = observation;
    since_improvement_ = 0;
    if (observation.cost) refill(observation.config);
  } else {
    ++since_improvement_;
  }
}

void HybridSearch::refill(const Config& best) {
  local_.clear();
  const auto pos = space_.positions(best);
  if (!pos) return;
  const auto& params = space_.params();
  std::vector<Config> steps;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const std::size_t n = params[p].second.size();
    for (std::size_t v = 0; v < n; ++v) {
      if (v == (*pos)[p]) continue;
      std::vector<std::size_t> q = *pos;
      q[p] = v;
      Config c = space_.from_positions(q);
      if (proposed(c) || !space_.valid(c)) continue;
      if (v + 1 == (*pos)[p] || v == (*pos)[p] + 1) steps.push_back(std::move(c));
    }
  }
  // Shuffled (Fisher-Yates on the seeded stream).
  for (std::size_t i = steps.size(); i > 1; --i) std::swap(steps[i - 1], steps[uniform_index(rng_, i)]);
  local_ = std::move(steps);
}

const Observation& HybridSearch::tournament() {
  const Observation& a = population_[uniform_index(rng_, population_.size())];
  const Observation& b = population_[uniform_index(rng_, population_.size())];
  return better(b.cost, a.cost) ? b : a;
}

std::optional<Config> HybridSearch::child() {
  if (population_.size() < 2) return std::nullopt;
  const auto& params = space_.params();
  const double mutation = 1.0 / static_cast<double>(std::max<std::size_t>(params.size(), 1));
  for (int attempt = 0; attempt < kChildTries; ++attempt) {
    const auto a = space_.positions(tournament().config);
    const auto b = space_.positions(tournament().config);
    if (!a || !b) return std::nullopt;
    std::vector<std::size_t> pos = *a;
    for (std::size_t p = 0; p < params.size(); ++p) {
      if (rng_.bits() & 1u) pos[p] = (*b)[p];
      if (rng_.next(0.0, 1.0) >= mutation) continue;
      const std::size_t n = params[p].second.size();
      if (n < 2) continue;
      if (rng_.next(0.0, 1.0) < 0.25) pos[p] = uniform_index(rng_, n);
      else if (pos[p] == 0) pos[p] = 1;
      else if (pos[p] + 1 == n) pos[p] = n - 2;
      else pos[p] = (rng_.bits() & 1u) ? pos[p] + 1 : pos[p] - 1;
    }
    Config c = space_.from_positions(pos);
    if (!proposed(c) && space_.valid(c)) return c;
  }
  return std::nullopt;
}

}  // namespace attn

#include "tuner/search/memetic_arm.hpp"

#include <algorithm>

#include "tuner/search/crossover.hpp"

namespace attn {
void MemeticArm::restart() {
  population_.clear();
  best_.reset();
  local_.clear();
  epoch_told_ = 0;
  since_improvement_ = 0;
  ++restarts_;
}

std::optional<Config> MemeticArm::next(ArmHost& host) {
  if (knobs_.stall > 0 && since_improvement_ >= knobs_.stall && pending_ == 0) restart();
  std::optional<Config> c;
  if (static_cast<std::size_t>(epoch_told_) + pending_ >= knobs_.initial) {
    while (!c && !local_.empty()) {
      if (!host.was_proposed(local_.back())) c = local_.back();
      local_.pop_back();
    }
    if (!c)
      c = crossover_child(population_, host.space(), host.rng(), [&](const Config& x) { return host.was_proposed(x); });
  }
  if (!c) c = host.random_config();
  if (c) ++pending_;
  return c;
}

void MemeticArm::observed(ArmHost& host, const Observation& observation, bool own) {
  // A sibling's results stay out of the population: sharing them measured no better (docs/search.md).
  if (!own) return;
  if (pending_ > 0) --pending_;
  ++epoch_told_;
  population_.push_back(observation);
  std::stable_sort(population_.begin(), population_.end(),
                   [](const Observation& a, const Observation& b) { return better(a.cost, b.cost); });
  if (population_.size() > knobs_.population) population_.pop_back();
  if (!best_ || better(observation.cost, best_->cost)) {
    best_ = observation;
    since_improvement_ = 0;
    if (observation.cost) refill(host, observation.config);
  } else {
    ++since_improvement_;
  }
}

void MemeticArm::refill(ArmHost& host, const Config& best) {
  local_.clear();
  const SpaceSampler& space = host.space();
  const auto pos = space.positions(best);
  if (!pos) return;
  const auto& params = space.params();
  std::vector<Config> steps;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const std::size_t n = params[p].second.size();
    for (std::size_t v = 0; v < n; ++v) {
      if (v == (*pos)[p]) continue;
      std::vector<std::size_t> q = *pos;
      q[p] = v;
      Config c = space.from_positions(q);
      if (host.was_proposed(c) || !space.valid(c)) continue;
      if (v + 1 == (*pos)[p] || v == (*pos)[p] + 1) steps.push_back(std::move(c));
    }
  }
  // Shuffled (Fisher-Yates on the seeded stream).
  for (std::size_t i = steps.size(); i > 1; --i) std::swap(steps[i - 1], steps[uniform_index(host.rng(), i)]);
  local_ = std::move(steps);
}

}  // namespace attn

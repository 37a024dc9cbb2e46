#include "tuner/search/local_arm.hpp"

namespace attn {

std::optional<Config> LocalArm::next(ArmHost& host) {
  while (point_ && !queue_.empty()) {
    Config c = std::move(queue_.back());
    queue_.pop_back();
    if (!host.was_proposed(c)) return c;
  }
  std::optional<Config> start = host.random_config();
  if (start) {
    point_.reset();
    awaiting_start_ = true;
    ++starts_;
  }
  return start;
}

void LocalArm::observed(ArmHost& host, const Observation& observation, bool own) {
  if (!own) return;
  if (awaiting_start_) {
    awaiting_start_ = false;
    move_to(host, observation);
  } else if (point_ && better(observation.cost, point_->cost)) {
    move_to(host, observation);
  }
}

void LocalArm::move_to(ArmHost& host, const Observation& point) {
  point_ = point;
  queue_ = host.space().neighbours(point.config);
  std::erase_if(queue_, [&](const Config& c) { return host.was_proposed(c); });
  // Shuffled (Fisher-Yates on the seeded stream).
  for (std::size_t i = queue_.size(); i > 1; --i) std::swap(queue_[i - 1], queue_[uniform_index(host.rng(), i)]);
}

}  // namespace attn

#include "tuner/search/annealing.hpp"

#include <cmath>

namespace attn {
namespace {

constexpr int kMovesPerProposal = 64;  // steps over already known neighbours before giving up and restarting

}  // namespace

std::optional<Config> SimulatedAnnealing::restart() {
  current_.reset();
  restarting_ = true;
  temperature_ = kStartTemperature;
  return random_unproposed();
}

std::optional<Config> SimulatedAnnealing::next() {
  if (!current_ || temperature_ < kEndTemperature) return restart();
  for (int move = 0; move < kMovesPerProposal && current_; ++move) {
    const std::vector<Config> all = space_.neighbours(current_->config);
    if (unproposed_neighbours(current_->config).empty()) break;
    const Config& candidate = all[uniform_index(rng_, all.size())];
    if (!proposed(candidate)) return candidate;
    // Known already: walk through it without spending an evaluation.
    if (const auto cost = told(candidate)) step(candidate, *cost);
  }
  return restart();
}

void SimulatedAnnealing::observed(const Observation& observation) {
  if (restarting_) {
    restarting_ = false;
    current_ = observation;
    return;
  }
  step(observation.config, observation.cost);
}

void SimulatedAnnealing::step(const Config& candidate, const Cost& cost) {
  temperature_ *= kCooling;
  if (!current_ || !cost) return;  // a failed configuration is never moved to
  bool accept = !current_->cost || *cost <= *current_->cost;
  if (!accept) {
    const double worse = std::log(*cost / *current_->cost);
    accept = rng_.next(0.0, 1.0) < std::exp(-worse / temperature_);
  }
  if (accept) current_ = Observation{candidate, cost};
}

}  // namespace attn

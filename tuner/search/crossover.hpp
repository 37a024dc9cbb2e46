// The genetic step that the genetic strategy and the hybrid's memetic arm share: a child of the population.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "tuner/search/space_sampler.hpp"
#include "tuner/search/strategy.hpp"

namespace attn {

// A child of POPULATION (two or more): a uniform crossover of two tournament winners (each the better of two
// drawn at random), then each parameter, with probability 1 / parameters, one value step up or down, or one
// time in four a random value. Up to 64 tries for a configuration SPACE accepts that PROPOSED does not know;
// nullopt after them, or with fewer than two in the population.
std::optional<Config> crossover_child(const std::vector<Observation>& population, const SpaceSampler& space,
                                      UniformStream& rng, const std::function<bool(const Config&)>& proposed);

}  // namespace attn

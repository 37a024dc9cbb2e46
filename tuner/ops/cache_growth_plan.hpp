// How an operation with a growing decode cache states the cache growth check
// (tuner/check/cache_growth.hpp): the shape computing several positions at
// once, one shape per decode step whose inputs the operation draws as cuts of
// the at-once inputs, and which at-once output elements each step must equal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

struct CacheGrowthPlan {
  std::string not_applicable;      // non-empty: why the shape has no growth to check
  nlohmann::json at_once;          // fields of the launch computing every position
  nlohmann::json at_once_summary;  // recorded: {"Nq", "Nkv"}
  std::vector<int> positions;      // first and last position decoded
  struct Step {
    nlohmann::json fields;   // the step's shape; its inputs are the at-once inputs cut to its cache
    nlohmann::json summary;  // recorded with the step: {"position", "Nkv"}
    // Output k's element e of this step equals at-once output k's element at_once_elements[k][e].
    std::vector<std::vector<std::size_t>> at_once_elements;
  };
  std::vector<Step> steps;
};

}  // namespace attn

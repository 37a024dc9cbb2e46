// The problem of an operation over three float inputs q, k, v and a float
// output o, all of one size (linear and multi-head attention). The inputs are
// a worked example's, or uniform in [-1, 1) from the seed's streams "q", "k"
// and "v"; the buffers are q, k, v, o in the kernels' argument order, o
// poisoned with NaN. Verified on sampled rows, 2048 by default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuner/ops/sampled_reference_problem.hpp"

namespace attn {

class FloatQkvProblem : public SampledReferenceProblem {
 public:
  // Its buffers, in order: what Operation::buffer_names answers without drawing a problem.
  static std::vector<std::string> buffer_names() { return {"q", "k", "v", "o"}; }

 protected:
  struct Inputs {
    std::vector<float> q, k, v;
  };

  // EXAMPLE's inputs, or ELEMENTS random values each when EXAMPLE is null.
  template <class Example>
  static Inputs example_or_random(const Example* example, std::size_t elements, std::uint64_t seed) {
    if (example) return {example->q, example->k, example->v};
    return random_inputs(elements, seed);
  }

  FloatQkvProblem(Inputs inputs, std::uint64_t seed);

  std::vector<float> q_, k_, v_;

 private:
  static Inputs random_inputs(std::size_t elements, std::uint64_t seed);
};

}  // namespace attn

#include "tuner/ops/float_qkv_problem.hpp"

#include <utility>

#include "tuner/core/rng.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {
FloatQkvProblem::FloatQkvProblem(Inputs inputs, std::uint64_t seed)
    : SampledReferenceProblem(seed, 2048), q_(std::move(inputs.q)), k_(std::move(inputs.k)), v_(std::move(inputs.v)) {
  const auto names = buffer_names();
  buffers_ = {{names[0], false, float_bytes(q_), {}},
              {names[1], false, float_bytes(k_), {}},
              {names[2], false, float_bytes(v_), {}},
              {names[3], true, std::vector<std::byte>(q_.size() * sizeof(float)), float_nan_poison()}};
}

FloatQkvProblem::Inputs FloatQkvProblem::random_inputs(std::size_t elements, std::uint64_t seed) {
  return {uniform_floats(elements, seed, "q", -1, 1), uniform_floats(elements, seed, "k", -1, 1),
          uniform_floats(elements, seed, "v", -1, 1)};
}

}  // namespace attn

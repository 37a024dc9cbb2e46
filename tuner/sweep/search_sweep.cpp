#include "tuner/sweep/search_sweep.hpp"

#include <algorithm>

#include "tuner/core/rng.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/search/space_sampler.hpp"

namespace attn {

Cost result_cost(const ConfigResult& result) {
  if (result.status != Status::ok || !result.timing) return std::nullopt;
  return result.timing->median_ms;
}

std::vector<std::pair<const Shape*, const KernelSpec*>> search_pairs(const Spec& spec, const std::string& backend) {
  std::vector<std::pair<const Shape*, const KernelSpec*>> pairs;
  for (const auto& shape : spec.shapes)
    for (const auto& kernel : spec.kernels)
      if (std::find(kernel.shapes.begin(), kernel.shapes.end(), shape.name) != kernel.shapes.end() &&
          std::find(kernel.backends.begin(), kernel.backends.end(), backend) != kernel.backends.end())
        pairs.emplace_back(&shape, &kernel);
  return pairs;
}

bool search_spec(const Spec& spec, const std::string& backend, const SearchOptions& options, std::uint64_t seed,
                 const RunJob& run, std::vector<ConfigResult>& results) {
  const Operation& op = spec_operation(spec);
  for (const auto& [shape_ptr, kernel_ptr] : search_pairs(spec, backend)) {
    const Shape& shape = *shape_ptr;
    const KernelSpec& kernel = *kernel_ptr;
    {
      const ConstrainedSpace space(kernel, op.variables(shape.fields));
      auto strategy = make_strategy(options.strategy, space, stream_seed(seed, kernel.name + "|" + shape.name, 0));
      bool stop = false;
      const Evaluate evaluate = [&](const Config& config) -> Cost {
        std::optional<ConfigResult> r = run(Job{kernel.name, shape.name, config, kernel.preset_label(config)});
        if (!r) {
          stop = true;
          return std::nullopt;
        }
        const Cost cost = result_cost(*r);
        results.push_back(std::move(*r));
        return cost;
      };
      run_search(*strategy, options.budget, evaluate, [&] { return stop; });
      if (stop) return false;
    }
  }
  return true;
}

}  // namespace attn

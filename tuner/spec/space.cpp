#include "tuner/spec/space.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace attn {

Bindings config_bindings(const Bindings& shape_variables, const Config& config) {
  Bindings b = shape_variables;
  for (const auto& [name, value] : config) b[name] = value;
  return b;
}

std::string failed_constraint(const KernelSpec& kernel, const Bindings& bindings) {
  for (const auto& c : kernel.constraints) {
    try {
      if (c.eval(bindings) == 0) return fmt::format("constraint `{}` is false", c.text());
    } catch (const ExpressionError& e) {
      return fmt::format("constraint `{}` cannot be evaluated: {}", c.text(), e.what());
    }
  }
  return {};
}

Space enumerate_space(const KernelSpec& kernel, const Bindings& shape_variables) {
  Space space;
  const auto& params = kernel.params;
  std::vector<std::size_t> index(params.size(), 0);
  space.product_size = 1;
  for (const auto& [_, values] : params) space.product_size *= static_cast<long long>(values.size());

  for (long long n = 0; n < space.product_size; ++n) {
    Config config;
    for (std::size_t p = 0; p < params.size(); ++p) config.emplace_back(params[p].first, params[p].second[index[p]]);
    if (failed_constraint(kernel, config_bindings(shape_variables, config)).empty())
      space.configs.push_back({config, kernel.preset_label(config), {}});
    else
      ++space.pruned;
    // Odometer: the last parameter varies fastest.
    for (std::size_t p = params.size(); p-- > 0;) {
      if (++index[p] < params[p].second.size()) break;
      index[p] = 0;
    }
  }

  for (const auto& [label, preset] : kernel.presets) {
    const bool present = std::any_of(space.configs.begin(), space.configs.end(),
                                     [&](const PlannedConfig& c) { return c.config == preset; });
    if (present) continue;
    space.configs.push_back({preset, label, failed_constraint(kernel, config_bindings(shape_variables, preset))});
  }
  return space;
}

}  // namespace attn

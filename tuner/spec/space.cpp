#include "tuner/spec/space.hpp"

#include <algorithm>
#include <limits>
#include <random>

#include <fmt/format.h>

namespace attn {

Bindings config_bindings(const Bindings& shape_variables, const Config& config) {
  Bindings b = shape_variables;
  // Reals and identifiers are not expression values (spec_loader refuses expressions naming them).
  for (const auto& [name, value] : config)
    if (value.is_bindable()) b[name] = value.integer();
  return b;
}

std::string failed_constraint(const KernelSpec& kernel, const Bindings& bindings) {
  for (const auto& c : kernel.constraints) {
    try {
      if (c.eval(bindings) == 0) return fmt::format("constraint {} is false", c.label());
    } catch (const ExpressionError& e) {
      return fmt::format("constraint {} cannot be evaluated: {}", c.label(), e.what());
    }
  }
  return {};
}

long long product_size(const KernelSpec& kernel) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  long long n = 1;
  for (const auto& [_, values] : kernel.params) {
    const auto count = static_cast<long long>(values.size());
    if (count == 0) return 0;
    n = n > kMax / count ? kMax : n * count;
  }
  return n;
}

SpaceCursor::SpaceCursor(const KernelSpec& kernel, const Bindings& shape_variables)
    : kernel_(kernel),
      bindings_(shape_variables),
      index_(kernel.params.size(), 0),
      product_size_(attn::product_size(kernel)) {
  product_done_ = product_size_ == 0;
}

bool SpaceCursor::in_product(const Config& config) const {
  const auto& params = kernel_.params;
  if (config.size() != params.size()) return false;
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (config[p].first != params[p].first) return false;
    const auto& values = params[p].second;
    if (std::find(values.begin(), values.end(), config[p].second) == values.end()) return false;
  }
  return true;
}

SpaceCursor::Step SpaceCursor::advance(PlannedConfig& out, long long max_points) {
  const auto& params = kernel_.params;
  for (long long looked = 0; !product_done_; ++looked) {
    if (looked >= max_points) return Step::busy;
    Config config;
    config.reserve(params.size());
    for (std::size_t p = 0; p < params.size(); ++p) {
      const ParamValue& value = params[p].second[index_[p]];
      config.emplace_back(params[p].first, value);
      if (value.is_bindable()) bindings_.insert_or_assign(params[p].first, value.integer());
    }
    // Odometer: the last parameter varies fastest; wrapping the first ends the product.
    product_done_ = true;
    for (std::size_t p = params.size(); p-- > 0;) {
      if (++index_[p] < params[p].second.size()) {
        product_done_ = false;
        break;
      }
      index_[p] = 0;
    }
    ++examined_;
    std::string reason = failed_constraint(kernel_, bindings_);
    if (reason.empty()) {
      out = {config, kernel_.preset_label(config), {}};
      return Step::config;
    }
    if (pruned_++ == 0) first_pruned_reason_ = std::move(reason);
  }

  while (next_preset_ < kernel_.presets.size()) {
    const auto& [label, preset] = kernel_.presets[next_preset_++];
    const std::string reason = failed_constraint(kernel_, config_bindings(bindings_, preset));
    if (reason.empty() && in_product(preset)) continue;  // met in the product already
    if (std::find(presets_emitted_.begin(), presets_emitted_.end(), preset) != presets_emitted_.end()) continue;
    presets_emitted_.push_back(preset);
    out = {preset, label, reason};
    return Step::config;
  }
  return Step::end;
}

bool SpaceCursor::next(PlannedConfig& out) {
  Step step;
  while ((step = advance(out)) == Step::busy) {
  }
  return step == Step::config;
}

SpaceCount count_space(const KernelSpec& kernel, const Bindings& shape_variables, long long exact_limit, int samples) {
  SpaceCount count;
  count.product = product_size(kernel);
  if (count.product <= exact_limit) {
    SpaceCursor cursor(kernel, shape_variables);
    for (PlannedConfig c; cursor.next(c);) count.kept += c.skip_reason.empty();
    return count;
  }
  count.exact = false;
  std::mt19937_64 rng(0x5eed);
  Bindings b = shape_variables;
  int kept = 0;
  for (int s = 0; s < samples; ++s) {
    for (const auto& [name, values] : kernel.params) {
      const ParamValue& v = values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
      if (v.is_bindable()) b.insert_or_assign(name, v.integer());
    }
    kept += failed_constraint(kernel, b).empty();
  }
  count.kept = static_cast<long long>(static_cast<double>(count.product) * kept / samples);
  return count;
}

Space enumerate_space(const KernelSpec& kernel, const Bindings& shape_variables) {
  Space space;
  SpaceCursor cursor(kernel, shape_variables);
  for (PlannedConfig c; cursor.next(c);) space.configs.push_back(std::move(c));
  space.product_size = cursor.product_size();
  space.pruned = cursor.pruned();
  return space;
}

}  // namespace attn

#include "tuner/search/space_sampler.hpp"

#include <algorithm>
#include <limits>

namespace attn {
namespace {

// Rejections before sample_unseen walks the product instead of drawing.
constexpr int kMaxRejections = 2000;

}  // namespace

SpaceSampler::SpaceSampler(Params params) : params_(std::move(params)) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  for (const auto& [_, values] : params_) {
    const auto n = static_cast<long long>(values.size());
    product_size_ = (n != 0 && product_size_ > kMax / n) ? kMax : product_size_ * n;
  }
}

Config SpaceSampler::at(long long index) const {
  Config config(params_.size());
  for (std::size_t p = params_.size(); p-- > 0;) {
    const auto& values = params_[p].second;
    const auto n = static_cast<long long>(values.size());
    config[p] = {params_[p].first, values[static_cast<std::size_t>(index % n)]};
    index /= n;
  }
  return config;
}

std::optional<std::vector<std::size_t>> SpaceSampler::positions(const Config& config) const {
  if (config.size() != params_.size()) return std::nullopt;
  std::vector<std::size_t> out(params_.size());
  for (std::size_t p = 0; p < params_.size(); ++p) {
    const auto& values = params_[p].second;
    const auto it = std::find(values.begin(), values.end(), config[p].second);
    if (it == values.end() || config[p].first != params_[p].first) return std::nullopt;
    out[p] = static_cast<std::size_t>(it - values.begin());
  }
  return out;
}

Config SpaceSampler::from_positions(const std::vector<std::size_t>& positions) const {
  Config config(params_.size());
  for (std::size_t p = 0; p < params_.size(); ++p) config[p] = {params_[p].first, params_[p].second[positions[p]]};
  return config;
}

std::optional<Config> SpaceSampler::sample_unseen(UniformStream& rng, const std::set<std::string>& seen) const {
  if (product_size_ == 0) return std::nullopt;
  const auto size = static_cast<std::uint64_t>(product_size_);
  for (int attempt = 0; attempt < kMaxRejections; ++attempt) {
    Config c = at(static_cast<long long>(uniform_index(rng, size)));
    if (!seen.contains(config_key(c)) && is_valid(c)) return c;
  }
  // Sparse or nearly exhausted: walk the whole product once from a random start.
  const auto start = static_cast<long long>(uniform_index(rng, size));
  for (long long i = 0; i < product_size_; ++i) {
    Config c = at((start + i) % product_size_);
    if (!seen.contains(config_key(c)) && is_valid(c)) return c;
  }
  return std::nullopt;
}

std::vector<Config> SpaceSampler::neighbours(const Config& config) const {
  std::vector<Config> out;
  for (std::size_t p = 0; p < params_.size(); ++p) {
    for (const ParamValue& v : params_[p].second) {
      if (v == config[p].second) continue;
      Config n = config;
      n[p].second = v;
      if (is_valid(n)) out.push_back(std::move(n));
    }
  }
  return out;
}

ConstrainedSpace::ConstrainedSpace(const KernelSpec& kernel, Bindings shape_variables)
    : SpaceSampler(kernel.params), kernel_(kernel), shape_variables_(std::move(shape_variables)) {}

std::optional<std::size_t> ConstrainedSpace::first_failed(const Config& config) const {
  const Bindings bindings = config_bindings(shape_variables_, config);
  for (std::size_t i = 0; i < kernel_.constraints.size(); ++i) {
    try {
      if (kernel_.constraints[i].eval(bindings) == 0) return i;
    } catch (const ExpressionError&) {
      return i;  // as the sweep's planner: a constraint that cannot be evaluated excludes the configuration
    }
  }
  return std::nullopt;
}

bool ConstrainedSpace::is_valid(const Config& config) const { return !first_failed(config).has_value(); }

RecordedSpace::RecordedSpace(Params params, const std::vector<Config>& recorded) : SpaceSampler(std::move(params)) {
  for (const auto& c : recorded) recorded_.insert(config_key(c));
}

SpaceSampler::Params RecordedSpace::params_of(const std::vector<std::string>& names, const std::vector<Config>& recorded) {
  Params params;
  for (std::size_t p = 0; p < names.size(); ++p) {
    std::vector<ParamValue> values;
    for (const auto& c : recorded)
      if (p < c.size()) values.push_back(c[p].second);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    params.emplace_back(names[p], std::move(values));
  }
  return params;
}

bool RecordedSpace::is_valid(const Config& config) const { return recorded_.contains(config_key(config)); }

}  // namespace attn

#include "tuner/spec/spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

std::string config_key(const Config& config) {
  std::string key;
  for (const auto& [name, value] : config) {
    if (!key.empty()) key += ',';
    key += fmt::format("{}={}", name, value);
  }
  return key;
}

std::string shape_summary(const nlohmann::json& fields) {
  std::string s;
  for (const auto& [k, v] : fields.items()) {
    if (v.is_null() || (v.is_number() && v.get<double>() == 0 && k != "causal")) continue;
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

std::vector<std::string> KernelSpec::param_names() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : params) names.push_back(name);
  return names;
}

std::string KernelSpec::preset_label(const Config& config) const {
  for (const auto& [label, preset] : presets)
    if (preset == config) return label;
  return {};
}

const std::vector<KernelArgument>& KernelSpec::launch_arguments(std::size_t launch) const {
  const auto& own = launches.at(launch).arguments;
  return own.empty() ? arguments : own;
}

bool KernelSpec::declares_arguments() const {
  return !arguments.empty() ||
         std::any_of(launches.begin(), launches.end(), [](const LaunchSpec& l) { return !l.arguments.empty(); });
}

const Shape& Spec::shape(const std::string& name) const {
  for (const auto& s : shapes)
    if (s.name == name) return s;
  throw UsageError(fmt::format("{}: no shape named '{}'", path.string(), name));
}

const KernelSpec& Spec::kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  throw UsageError(fmt::format("{}: no kernel named '{}'", path.string(), name));
}

}  // namespace attn

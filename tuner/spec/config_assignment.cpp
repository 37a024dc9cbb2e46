#include "tuner/spec/config_assignment.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"

namespace attn {

Config config_from_assignments(const KernelSpec& kernel, const std::string& preset, const std::string& assignments) {
  Config config;
  const std::string base = preset.empty() ? kernel.baseline : preset;
  if (!base.empty()) {
    auto it = std::find_if(kernel.presets.begin(), kernel.presets.end(), [&](auto& p) { return p.first == base; });
    if (it == kernel.presets.end())
      throw UsageError(fmt::format("--preset: kernel '{}' has no preset '{}'", kernel.name, base));
    config = it->second;
  }
  const auto names = kernel.param_names();
  std::stringstream in(assignments);
  for (std::string token; std::getline(in, token, ',');) {
    if (token.empty()) continue;
    const auto eq = token.find('=');
    if (eq == std::string::npos) throw UsageError(fmt::format("--set: expected NAME=VALUE, got '{}'", token));
    const std::string name = token.substr(0, eq);
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw UsageError(fmt::format("--set: '{}' is not a parameter of kernel '{}' (parameters: {})", name, kernel.name,
                                   fmt::join(names, ", ")));
    const auto& values =
        std::find_if(kernel.params.begin(), kernel.params.end(), [&](auto& p) { return p.first == name; })->second;
    const ParamValue::Kind kind = values.front().kind();
    ParamValue value;
    try {
      value = ParamValue::parse(kind, token.substr(eq + 1));
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--set: {} needs {} value", token,
                                   kind == ParamValue::Kind::integer   ? "an integer"
                                   : kind == ParamValue::Kind::real    ? "a real"
                                   : kind == ParamValue::Kind::boolean ? "a true/false"
                                                                       : "an identifier"));
    }
    auto it = std::find_if(config.begin(), config.end(), [&](auto& p) { return p.first == name; });
    if (it != config.end()) it->second = value;
    else config.emplace_back(name, value);
  }
  Config ordered;
  std::vector<std::string> missing;
  for (const auto& name : names) {
    auto it = std::find_if(config.begin(), config.end(), [&](auto& p) { return p.first == name; });
    if (it == config.end()) missing.push_back(name);
    else ordered.push_back(*it);
  }
  if (!missing.empty())
    throw UsageError(fmt::format("--set: no value for {} (kernel '{}' has no baseline preset to take them from)",
                                 fmt::join(missing, ", "), kernel.name));
  return ordered;
}

}  // namespace attn

#include "tuner/record/check_results.hpp"

namespace attn {

std::optional<bool> check_passed(const nlohmann::json& checks, const std::string& name) {
  if (!checks.is_object() || !checks.contains(name)) return std::nullopt;
  const auto& c = checks.at(name);
  if (c.is_boolean()) return c.get<bool>();
  if (c.is_object() && c.contains("passed") && c.at("passed").is_boolean()) return c.at("passed").get<bool>();
  return std::nullopt;
}

}  // namespace attn

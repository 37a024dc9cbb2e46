// What one determinism check concluded about a configuration.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace attn {

struct CheckOutcome {
  std::optional<bool> passed;  // nullopt: not applicable here, details["not_applicable"] says why
  nlohmann::json details = nlohmann::json::object();

  static CheckOutcome not_applicable(const std::string& why) {
    CheckOutcome o;
    o.details["not_applicable"] = why;
    return o;
  }
};

}  // namespace attn

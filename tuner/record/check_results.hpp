// The determinism checks a result may record (`sweep --check determinism`,
// tuner/check/), read the same way by the gate and the report.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace attn {

inline constexpr std::array<const char*, 3> kDeterminismChecks{"deterministic", "batch_invariant", "cache_growth"};

// A check's outcome, recorded as a bool or as an object with "passed"; nothing
// when it was not run or did not apply (null).
std::optional<bool> check_passed(const nlohmann::json& checks, const std::string& name);

}  // namespace attn

// Results recorded by other tuners, read as leaderboards so that replay, report and export take them: Kernel
// Tuner's cache files and T4 results documents (kernel_tuner/schema/T4/1.0.0), attn-tune's own T4 export included.
// Each becomes one (kernel, shape) group ranked as a sweep ranks; an imported entry's median_ms is the file's
// objective `time` (Kernel Tuner's mean of its runs), the value its strategies minimize.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tuner/record/leaderboard_model.hpp"

namespace attn {

enum class ResultsFormat { leaderboard, kernel_tuner_cache, t4_results, unknown };

ResultsFormat results_format(const nlohmann::json& document);

// Throw UsageError naming FILE and the field ("cache[\"16,16,32\"].time: ...").
Leaderboard leaderboard_from_kernel_tuner_cache(const nlohmann::ordered_json& document, const std::string& file);
Leaderboard leaderboard_from_t4_results(const nlohmann::ordered_json& document, const std::string& file);

}  // namespace attn

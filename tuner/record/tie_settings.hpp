// How ties are decided (tuner/record/ties.hpp); part of a sweep's settings.
#pragma once

#include <nlohmann/json.hpp>

namespace attn {

struct TieSettings {
  int rounds = 3;  // interleaved re-measurements per candidate; 0 = ties off
  // "within noise": median gap <= this many noise bands (record/noise.hpp). One band: a tie never reorders rows
  // whose medians differ by more than their noise.
  double noise_multiple = 1.0;
  int max_candidates = 8;  // re-time at most this many closest to the best

  nlohmann::json to_json() const;  // the macro's below
  static TieSettings from_json(const nlohmann::json& j);
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TieSettings, rounds, noise_multiple, max_candidates)

}  // namespace attn

// What defines a sweep's measurements: results measured under one identity
// may be ranked against each other, and a resumed sweep must keep it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/record/leaderboard_model.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// {spec_sha256, sources: {backend: sha256}, shape_selection, device, seed,
// timing: every timing setting, checks: the determinism checks' settings}.
// Not in it: what only decides ranking or robustness (--require, isolation, watchdogs).
nlohmann::json measurement_identity(const Spec& spec, const std::string& shape_selection, const DeviceInfo& device,
                                    const RunSettings& settings);
// The same, from what a leaderboard records (merge compares its parts by it).
nlohmann::json measurement_identity(const Leaderboard& leaderboard);

}  // namespace attn

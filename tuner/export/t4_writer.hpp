// Kernel Tuner's T4 documents (schemas kernel_tuner/schema/T4/1.0.0): the
// results of one (kernel, shape) of a leaderboard, and the metadata of the run,
// so that the community's tools (the autotuning methodology package, Kernel
// Tuner's own) read attn-tune's runs.
#pragma once

#include <nlohmann/json.hpp>

#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

inline constexpr const char* kT4SchemaVersion = "1.0.0";

// T4's `invalidity` of a result: correct, compile, runtime, correctness, timeout or constraints.
const char* t4_invalidity(const ConfigResult& result);

// One entry per configuration: its parameters, objective `time`, timings, invalidity,
// correctness and, as measurements, the median time and throughput, TFLOP/s, registers
// per entry point and the determinism checks when they ran.
nlohmann::json t4_results(const Leaderboard& leaderboard, const LeaderboardGroup& group);

// The device as the device query, attn-tune as the requirement.
nlohmann::json t4_metadata(const Leaderboard& leaderboard);

}  // namespace attn

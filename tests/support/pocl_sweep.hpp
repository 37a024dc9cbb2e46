// Sweeps in a test on the first OpenCL device (PoCL on the test machines),
// through attn-tune's own sweep, with the least timing that still ranks.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/sweep/sweep.hpp"

namespace attn::test {

// Options to sweep SPEC on opencl:0:0 into DIR/lb.json: 2 samples, at most
// 10 ms each, no warm-up; worker processes run the attn-tune under test.
SweepOptions pocl_sweep_options(const std::filesystem::path& spec, const TempDir& dir);

// Options for sweeps that check correctness only: in this process, warm
// timing of one sample of at most 1 ms, no warm-up.
SweepOptions pocl_verify_options(const std::filesystem::path& spec, const TempDir& dir);

// Runs OPTIONS without progress output and returns the leaderboard.
nlohmann::json sweep_leaderboard(const SweepOptions& options);

// Both: SPEC's whole plan swept on PoCL.
nlohmann::json pocl_sweep(const std::filesystem::path& spec, const TempDir& dir);

}  // namespace attn::test

// The inputs attn-tune draws for a shape (the operation's make_problem from the sweep's seed), written for
// another harness to run on the very same data: a PyTorch comparison, a debugger session. Scripts read these
// files instead of re-implementing the random streams (tuner/core/rng.hpp).
//
// DIR/inputs.json (schema attn-tune.inputs/1): the spec, operation, seed and byte order, and per shape its
// fields and buffers in the operation's order; each input buffer's bytes are in DIR/<shape>.<buffer>.bin, raw,
// as attn-tune uploads them. Outputs are listed with their size only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace attn {

inline constexpr const char* kInputsSchema = "attn-tune.inputs/1";

// Writes SHAPES' (names of SPEC's shapes) inputs for SEED to DIR, created if absent; returns the files written.
int write_problem_inputs(const Spec& spec, const std::vector<std::string>& shapes, std::uint64_t seed,
                         const std::filesystem::path& dir);

}  // namespace attn

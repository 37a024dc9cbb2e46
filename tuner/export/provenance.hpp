// Where a result came from, for the comments of generated files and the
// headers of reports: file, device, when, attn-tune's version, the hashes of
// the spec and the kernel sources.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/spec/spec.hpp"  // shape_summary

namespace attn {

// "results/x.json: flash_attn_f32_f16 on NVIDIA H200 (cuda, sm_90), 2026-11-21T08:00:00Z, attn-tune 0.1.0 (4f3f3c3a1b2c)"
// then one indented line for the spec's sha256 and one per source's.
std::vector<std::string> provenance_lines(const Leaderboard& leaderboard);

}  // namespace attn

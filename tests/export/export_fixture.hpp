// The export tests' leaderboards: spec "fixture", kernel "prefill" (BLOCK_M,
// BLOCK_N) on four devices, with times chosen so that each level of the
// fallback chain gives a different answer:
//   NVIDIA H200, prefill-1k            A = 64,64    (its own best)
//   NVIDIA H200, prefill-4k            B = 128,64
//   sm_90 (H200 + H100), 1k bucket     B = 128,64   (geometric mean 1.045 beats 1.2, 1.22, 1.26)
//   NVIDIA Corporation (+ A100), 1k    C = 64,32    (A failed on the A100: fewer results; C 1.145 beats 1.2, 1.2)
//   default                            E = 32,64    (the only one that ranked everywhere)
//   PoCL (f32_f16)                     C = 64,32
// The H100's C and B carry determinism checks (C not batch-invariant), for the report.
#pragma once

#include <filesystem>
#include <vector>

namespace attn::test {

class TempDir;

// Writes the four leaderboards into DIR and returns their paths.
std::vector<std::filesystem::path> write_export_fixture(const TempDir& dir);

}  // namespace attn::test

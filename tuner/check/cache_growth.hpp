// Decode cache growth: decoding positions one at a time over a growing KV
// cache must give the bytes of computing those positions at once. The
// operation states the shapes and which elements correspond
// (Operation::cache_growth); for attention:
//
// For the shape under test with Nkv = N, at B = 1, the last T = min(steps, N)
// positions p = N-T .. N-1 are computed twice:
//   at once:  one launch, Nq = T, Nkv = N, causal = 1 (bottom-right aligned:
//             query row t sits at position N-T+t and sees keys 0 .. N-T+t);
//   step t:   one launch, Nq = 1, Nkv = N-T+t+1, causal = 1: the cache holds
//             exactly keys 0 .. p, as a decoder's does once token p is appended.
//             Its q is row t of the at-once q, its K/V the first N-T+t+1 rows of
//             the at-once K/V, its mask row t of the at-once mask cut to the cache.
// Window, mask, ALiBi, sinks, GQA and the head dimension are the shape's, so
// both compute the same mathematical row; row t of the at-once output must
// equal step t's output bitwise. A kernel whose key split or reduction order
// follows the cache length (a split count from Nkv) fails it.
//
// Not applicable when the kernel's constraints exclude either launch: a
// decode-only kernel requiring Nq == 1 cannot compute positions at once.
#pragma once

#include "tuner/check/check_outcome.hpp"
#include "tuner/check/derived_shapes.hpp"

namespace attn {

// details: {"positions": [first, last], "at_once": {"Nq", "Nkv"}, "steps": [{"step",
// "position", "Nkv", "identical"}], "mismatch": {..., "step", "position"}}.
CheckOutcome check_cache_growth(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                const nlohmann::json& fields, int steps);

}  // namespace attn

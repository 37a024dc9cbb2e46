// `--shape`: pick named shapes and/or override fields of the spec's shapes,
// e.g. `--shape prefill-512,decode-4k`, `--shape Nq=2048,Nkv=2048,causal=1` or `--shape 'prefill-512[B=3]'`.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "tuner/spec/spec.hpp"

namespace attn {

// Applies SELECTION to SPEC in place: names keep only those shapes; K=V pairs
// override fields of every kept shape (renamed "name[K=V,...]") and are
// validated as the spec's own shapes are. A leaderboard's label "name[K=V,...]"
// selects that shape with those overrides, under that name again. Throws UsageError.
void select_shapes(Spec& spec, const std::string& selection);

// Integer shape fields reach kernels as 4-byte int (kernels/common/*_params.h).
inline constexpr long long kMinShapeInteger = std::numeric_limits<std::int32_t>::min();
inline constexpr long long kMaxShapeInteger = std::numeric_limits<std::int32_t>::max();
// Why VALUE cannot be an integer shape field, or empty.
std::string shape_integer_problem(long long value);

}  // namespace attn

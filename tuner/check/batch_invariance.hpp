// Batch invariance: a sequence computed alone (B=1) and the same sequence
// inside a batch of B must give the same bytes, whatever the other sequences
// hold. Split-KV heuristics that pick the split count from the batch size
// break it. Relies on the operation's contract that sequence b's inputs are
// drawn from their own stream (the same inside any batch), and on its output
// declarations (where each sequence lies: packed variable-length tokens too).
// A sequence other than the first is drawn alone by the operation
// (Operation::sequence_shape) or, when it cannot, copied from the batch's
// inputs, each input being one share per sequence or shared by all.
#pragma once

#include <vector>

#include "tuner/check/check_outcome.hpp"
#include "tuner/check/derived_shapes.hpp"

namespace attn {

// For each B in BATCH_SIZES (B=1 is the reference and is skipped), the first
// and the last sequence of the batch are compared with the same sequence
// computed at B=1. FIELDS is the shape under test; its batch size is replaced.
// details: {"reference": "B=1", "compared": [{"B", "sequences", "identical"} |
// {"B", "excluded"}], "mismatch": {..., "B", "sequence"}}.
CheckOutcome check_batch_invariance(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                    const nlohmann::json& fields, const std::vector<int>& batch_sizes);

}  // namespace attn

// Checks that run on every verified configuration before it is timed.
#pragma once

namespace attn {

class Evaluator;

// Installs the checks the evaluator's settings ask for: with determinism
// enabled, cross-run, batch invariance and decode cache growth
// (determinism_check.hpp) record into each result's `checks`.
void install_checks(Evaluator& evaluator);

}  // namespace attn

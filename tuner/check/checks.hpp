// Checks that run on every verified configuration before it is timed.
#pragma once

namespace attn {

class Evaluator;

// Installs the checks the evaluator's settings ask for (determinism, batch invariance).
void install_checks(Evaluator& evaluator);

}  // namespace attn

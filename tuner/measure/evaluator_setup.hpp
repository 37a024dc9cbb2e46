// What a run adds to every evaluator it creates, in this process or in a
// worker: the checks (tuner/check) that a higher layer registers at start-up,
// so that run/ does not depend on them.
#pragma once

#include <functional>

namespace attn {

class Evaluator;

using EvaluatorSetup = std::function<void(Evaluator&)>;

// Replaces the setup every later evaluator gets (the app registers the checks).
void set_evaluator_setup(EvaluatorSetup setup);

// Applies the registered setup. Throws Error when the settings ask for
// determinism checks and no setup was registered to provide them.
void set_up_evaluator(Evaluator& evaluator);

}  // namespace attn

#include "tuner/measure/evaluator_setup.hpp"

#include "tuner/core/error.hpp"
#include "tuner/measure/evaluator.hpp"

namespace attn {
namespace {

EvaluatorSetup& registered() {
  static EvaluatorSetup setup;
  return setup;
}

}  // namespace

void set_evaluator_setup(EvaluatorSetup setup) { registered() = std::move(setup); }

void set_up_evaluator(Evaluator& evaluator) {
  if (registered()) {
    registered()(evaluator);
    return;
  }
  if (evaluator.settings().determinism.enabled)
    throw Error("determinism checks were asked for, but no checks are registered in this program (register_checks())");
}

}  // namespace attn

#include "tuner/check/checks.hpp"

#include "tuner/run/evaluator.hpp"

namespace attn {

void install_checks(Evaluator& evaluator) {
  if (!evaluator.settings().determinism.enabled) return;
}

}  // namespace attn

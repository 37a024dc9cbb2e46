#include "tuner/check/checks.hpp"

#include <memory>

#include "tuner/check/determinism_check.hpp"
#include "tuner/measure/evaluator.hpp"

namespace attn {

void install_checks(Evaluator& evaluator) {
  if (!evaluator.settings().determinism.enabled) return;
  // Derived shapes (other batch sizes, decode steps) are drawn once per shape
  // under test and shared by its configurations; the sweep is shape-major, so
  // moving to the next shape frees them.
  auto shapes = std::make_shared<DerivedShapes>(evaluator);
  auto current = std::make_shared<std::string>();
  const DeterminismOptions options = DeterminismOptions::from(evaluator.settings().determinism);
  evaluator.set_checker([shapes, current, options](Evaluator& ev, const KernelSpec& kernel, const Job& job, const Plan&,
                                                   ConfigResult& result) {
    if (*current != job.shape) {
      shapes->clear();
      *current = job.shape;
    }
    result.checks.update(check_determinism(*shapes, kernel, job.config, ev.spec().shape(job.shape).fields, options));
  });
}

}  // namespace attn

#include "tuner/ops/sampled_reference_problem.hpp"

#include "tuner/core/parallel_for.hpp"
#include "tuner/ops/row_verification.hpp"

namespace attn {

std::size_t SampledReferenceProblem::row_limit(const Tolerance& tol) const {
  return tol.max_rows > 0 ? std::size_t(tol.max_rows) : default_limit_;
}

const SampledReferenceProblem::Reference& SampledReferenceProblem::reference(const Tolerance& tol) const {
  std::lock_guard lock(mutex_);
  const std::size_t limit = row_limit(tol);
  if (limit_ == limit) return ref_;
  prepare_reference();
  ref_.rows = sample_rows(reference_rows(), limit, seed_, always_checked_rows());
  const std::size_t length = reference_row_length();
  ref_.values.assign(ref_.rows.size() * length, 0.0);
  parallel_for(ref_.rows.size(), [&](std::size_t r) { reference_row(ref_.rows[r], ref_.values.data() + r * length); });
  limit_ = limit;
  return ref_;
}

bool SampledReferenceProblem::adopt_reference(const Tolerance& tol, std::vector<double> values) const {
  std::lock_guard lock(mutex_);
  const std::size_t limit = row_limit(tol);
  std::vector<std::size_t> rows = sample_rows(reference_rows(), limit, seed_, always_checked_rows());
  if (values.size() != rows.size() * reference_row_length()) return false;
  ref_ = {std::move(rows), std::move(values)};
  limit_ = limit;
  return true;
}

}  // namespace attn

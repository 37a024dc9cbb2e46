#include "tuner/plan/run_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/ops/operation.hpp"

namespace attn {
namespace {

bool runs_on(const KernelSpec& kernel, const std::string& backend) {
  return std::find(kernel.backends.begin(), kernel.backends.end(), backend) != kernel.backends.end();
}

bool has_shape(const KernelSpec& kernel, const std::string& shape) {
  return std::find(kernel.shapes.begin(), kernel.shapes.end(), shape) != kernel.shapes.end();
}

}  // namespace

std::string Exclusion::text() const { return fmt::format("kernel {} cannot run shape {}: {}", kernel, shape, reason); }

RunPlan::RunPlan(const Spec& spec, std::string backend) : spec_(spec), backend_(std::move(backend)) {
  for (const auto& k : spec_.kernels)
    if (!runs_on(k, backend_) && !k.shapes.empty()) not_on_backend_.push_back(k.name);
}

RunPlan::~RunPlan() = default;

bool RunPlan::open_next_pair() {
  const Operation& op = spec_operation(spec_);
  for (; shape_ < spec_.shapes.size(); ++shape_, kernel_ = 0) {
    const Shape& shape = spec_.shapes[shape_];
    for (; kernel_ < spec_.kernels.size(); ++kernel_) {
      const KernelSpec& kernel = spec_.kernels[kernel_];
      if (!has_shape(kernel, shape.name) || !runs_on(kernel, backend_)) continue;
      if (open_shape_ != &shape) variables_ = op.variables(shape.fields);
      open_shape_ = &shape;
      open_kernel_ = &kernel;
      cursor_ = std::make_unique<SpaceCursor>(kernel, variables_);
      runnable_in_pair_ = 0;
      first_skip_in_pair_.clear();
      ++kernel_;
      return true;
    }
  }
  return false;
}

void RunPlan::close_pair() {
  if (runnable_in_pair_ == 0) {
    std::string reason = cursor_->first_pruned_reason();
    if (reason.empty()) reason = first_skip_in_pair_;
    if (reason.empty()) reason = "the space is empty";
    exclusions_.push_back({open_kernel_->name, open_shape_->name, std::move(reason)});
  }
  cursor_.reset();
  open_kernel_ = nullptr;
}

RunPlan::Step RunPlan::advance(PlannedJob& out, long long max_points) {
  while (true) {
    if (!cursor_ && !open_next_pair()) return Step::end;
    PlannedConfig c;
    const SpaceCursor::Step step = cursor_->advance(c, max_points);
    if (step == SpaceCursor::Step::busy) return Step::busy;
    if (step == SpaceCursor::Step::end) {
      close_pair();
      continue;
    }
    if (c.skip_reason.empty()) ++runnable_in_pair_;
    else if (first_skip_in_pair_.empty()) first_skip_in_pair_ = c.skip_reason;
    out.job = Job{open_kernel_->name, open_shape_->name, std::move(c.config), std::move(c.preset)};
    out.skip_reason = std::move(c.skip_reason);
    out.kernel = open_kernel_;
    out.shape_variables = &variables_;
    return Step::job;
  }
}

bool RunPlan::next(PlannedJob& out) {
  Step step;
  while ((step = advance(out)) == Step::busy) {
  }
  return step == Step::job;
}

PlanSize RunPlan::size(long long exact_budget) const {
  const Operation& op = spec_operation(spec_);
  std::vector<std::pair<const KernelSpec*, Bindings>> pairs;
  long long total_product = 0;
  for (const auto& shape : spec_.shapes)
    for (const auto& kernel : spec_.kernels)
      if (has_shape(kernel, shape.name) && runs_on(kernel, backend_)) {
        pairs.emplace_back(&kernel, op.variables(shape.fields));
        total_product = std::min<long long>(INT64_MAX / 2, total_product + product_size(kernel));
      }
  PlanSize size;
  const long long per_pair = total_product <= exact_budget || pairs.empty()
                                 ? INT64_MAX
                                 : std::max<long long>(100, exact_budget / static_cast<long long>(pairs.size()));
  for (const auto& [kernel, vars] : pairs) {
    const SpaceCount count = count_space(*kernel, vars, per_pair);
    size.product = std::min<long long>(INT64_MAX / 2, size.product + count.product);
    size.kept = std::min<long long>(INT64_MAX / 2, size.kept + count.kept);
    size.exact = size.exact && count.exact;
  }
  return size;
}

}  // namespace attn

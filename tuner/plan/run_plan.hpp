// The plan of a run: every (shape, kernel, configuration) of a resolved spec on
// one backend, each a job to run or a skip with its reason. Shape-major, so
// that each shape's inputs and reference are built once; lazy, so that memory
// does not grow with the space and the first job comes at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tuner/record/result.hpp"
#include "tuner/spec/space.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct PlannedJob {
  Job job;
  std::string skip_reason;  // empty: run it
  const KernelSpec* kernel = nullptr;
  const Bindings* shape_variables = nullptr;  // valid until the plan moves to the next shape
};

// A kernel and shape pair in which the constraints left nothing to run, and
// the first constraint that excluded a configuration.
struct Exclusion {
  std::string kernel;
  std::string shape;
  std::string reason;
  // "kernel K cannot run shape S: REASON", as sweep and compile print it
  std::string text() const;
};

// How many configurations the plan holds (exact for small spaces, estimated
// from a sample for large ones).
struct PlanSize {
  long long product = 0;  // before the constraints
  long long kept = 0;     // after them (plus the presets outside the product)
  bool exact = true;
};

class RunPlan {
 public:
  enum class Step { job, busy, end };

  RunPlan(const Spec& spec, std::string backend);
  ~RunPlan();

  // The next planned job into OUT. Looks at most MAX_POINTS product points
  // (answering `busy` when they were all pruned), so that the caller can check
  // for Ctrl-C between calls however sparse the space is.
  Step advance(PlannedJob& out, long long max_points = INT64_MAX);
  bool next(PlannedJob& out);

  // The kernels with no source for the backend: not enumerated at all.
  const std::vector<std::string>& kernels_not_on_backend() const { return not_on_backend_; }
  // The pairs enumerated so far that yielded no runnable job.
  const std::vector<Exclusion>& exclusions() const { return exclusions_; }

  // Counts (or, past a budget of constraint evaluations, estimates) the whole
  // plan without advancing it.
  PlanSize size(long long exact_budget = 200000) const;

  const std::string& backend() const { return backend_; }

 private:
  bool open_next_pair();
  void close_pair();

  const Spec& spec_;
  std::string backend_;
  std::vector<std::string> not_on_backend_;
  std::vector<Exclusion> exclusions_;
  std::size_t shape_ = 0, kernel_ = 0;  // the next pair to open
  Bindings variables_;                  // the open shape's
  const KernelSpec* open_kernel_ = nullptr;
  const Shape* open_shape_ = nullptr;
  std::unique_ptr<SpaceCursor> cursor_;
  long long runnable_in_pair_ = 0;
  std::string first_skip_in_pair_;
};

}  // namespace attn

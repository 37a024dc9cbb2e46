// The parameter space of a kernel on one shape: the cartesian product of the
// params, pruned by the constraints, plus the named presets. Enumerated
// lazily by a cursor, so memory does not grow with the space.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/spec/expression.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct PlannedConfig {
  Config config;
  std::string preset;       // the preset's label when it is one, else empty
  std::string skip_reason;  // non-empty for a preset that breaks a constraint: it is reported, not run
};

// Every variable a configuration's expressions see: the shape's and the params'.
Bindings config_bindings(const Bindings& shape_variables, const Config& config);

// The first constraint CONFIG breaks on this shape, as a readable reason; empty when none.
std::string failed_constraint(const KernelSpec& kernel, const Bindings& bindings);

// Points in the product of KERNEL's params before the constraints (saturates at INT64_MAX).
long long product_size(const KernelSpec& kernel);

// Walks the space in enumeration order: product order (first parameter
// slowest, last fastest) keeping the configurations every constraint accepts,
// then the presets not already met that way (outside the product, or breaking
// a constraint: those carry the reason and are reported, not run).
class SpaceCursor {
 public:
  enum class Step { config, busy, end };

  SpaceCursor(const KernelSpec& kernel, const Bindings& shape_variables);

  // The next configuration into OUT. Examines at most MAX_POINTS product points
  // and answers `busy` when they were all pruned, so that a caller can stay
  // responsive (Ctrl-C) on a space the constraints prune almost entirely.
  Step advance(PlannedConfig& out, long long max_points = INT64_MAX);
  // advance() until a configuration or the end.
  bool next(PlannedConfig& out);

  long long product_size() const { return product_size_; }
  long long pruned() const { return pruned_; }      // product points the constraints removed so far
  long long examined() const { return examined_; }  // product points looked at so far
  // Why the first pruned point was pruned ("constraint `WG <= Nq` is false"); empty when none was.
  const std::string& first_pruned_reason() const { return first_pruned_reason_; }

 private:
  bool in_product(const Config& config) const;

  const KernelSpec& kernel_;
  Bindings bindings_;               // the shape's variables, the params' overwritten per point
  std::vector<std::size_t> index_;  // odometer over the params' value lists
  bool product_done_ = false;
  std::size_t next_preset_ = 0;
  std::vector<Config> presets_emitted_;
  long long product_size_ = 0, pruned_ = 0, examined_ = 0;
  std::string first_pruned_reason_;
};

// How many configurations of the space can run: exact when the product has at
// most EXACT_LIMIT points, otherwise estimated from a deterministic sample of
// SAMPLES product points (presets outside the product then not counted).
struct SpaceCount {
  long long product = 0;
  long long kept = 0;  // configurations the cursor yields without a skip reason
  bool exact = true;
};
SpaceCount count_space(const KernelSpec& kernel, const Bindings& shape_variables, long long exact_limit = 20000,
                       int samples = 2000);

// The whole space at once, for small spaces and tests; the cursor's order.
struct Space {
  std::vector<PlannedConfig> configs;  // product order (first parameter slowest), then extra presets
  long long product_size = 0;          // before the constraints
  long long pruned = 0;                // removed by the constraints
};
Space enumerate_space(const KernelSpec& kernel, const Bindings& shape_variables);

}  // namespace attn

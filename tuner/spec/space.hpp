// The parameter space of a kernel on one shape: the cartesian product of the
// params, pruned by the constraints, plus the named presets.
#pragma once

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

struct Space {
  std::vector<PlannedConfig> configs;  // product order (first parameter slowest), then extra presets
  long long product_size = 0;          // before the constraints
  long long pruned = 0;                // removed by the constraints
};

// Every variable a configuration's expressions see: the shape's and the params'.
Bindings config_bindings(const Bindings& shape_variables, const Config& config);

// The first constraint CONFIG breaks on this shape, as a readable reason; empty when none.
std::string failed_constraint(const KernelSpec& kernel, const Bindings& bindings);

Space enumerate_space(const KernelSpec& kernel, const Bindings& shape_variables);

}  // namespace attn

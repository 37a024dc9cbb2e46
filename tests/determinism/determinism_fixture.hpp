// Runs the determinism checks in this process on PoCL, on a spec of tests/data/determinism.
#pragma once

#include <memory>
#include <string>

#include "tests/support/test_support.hpp"
#include "tuner/backend/registry.hpp"
#include "tuner/check/determinism_check.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/measure/evaluator.hpp"

namespace attn::test {

class DeterminismChecks {
 public:
  explicit DeterminismChecks(const std::string& spec_name)
      : spec_(load_spec(data("determinism/" + spec_name))),
        device_(open_device("opencl:0:0")),
        evaluator_(spec_, *device_, RunSettings{}),
        shapes_(evaluator_) {}

  // The checks of KERNEL's preset PRESET (empty: the first value of every
  // parameter) on the spec's first shape.
  nlohmann::json check(const std::string& kernel_name, const std::string& preset, DeterminismOptions options = {}) {
    const KernelSpec& kernel = spec_.kernel(kernel_name);
    Config config;
    if (preset.empty()) {
      for (const auto& [name, values] : kernel.params) config.emplace_back(name, values.front());
    } else {
      for (const auto& [label, c] : kernel.presets)
        if (label == preset) config = c;
    }
    return check_determinism(shapes_, kernel, config, spec_.shapes.front().fields, options);
  }

 private:
  Spec spec_;
  std::unique_ptr<Device> device_;
  Evaluator evaluator_;
  DerivedShapes shapes_;
};

}  // namespace attn::test

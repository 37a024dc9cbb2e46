// The shapes the determinism checks derive from the shape under test (another
// batch size, a decode step over a shorter cache), with their inputs drawn and
// uploaded once and shared by every configuration checked on that shape.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/check/bitwise_compare.hpp"
#include "tuner/measure/evaluator.hpp"

namespace attn {

// FIELDS with NAME set to VALUE.
nlohmann::json with_field(nlohmann::json fields, const std::string& name, const nlohmann::json& value);

// A derived shape's inputs on the device, and how its outputs are laid out.
struct DerivedShape {
  PreparedShape prepared;
  std::vector<OutputLayout> layouts;  // one per output buffer
  bool inputs_replaced = false;       // a check uploaded inputs of its own (kept for the next configuration)
};

class DerivedShapes {
 public:
  explicit DerivedShapes(Evaluator& evaluator) : evaluator_(evaluator) {}

  // FIELDS' inputs as the operation draws them from the run's seed. A check
  // that overwrites some inputs asks under its own TAG, so that the drawn
  // copy stays intact for the others.
  DerivedShape& get(const nlohmann::json& fields, const std::string& tag = "");

  // Frees every shape's device memory (before moving to another shape under test).
  void clear() { shapes_.clear(); }

  Evaluator& evaluator() { return evaluator_; }

 private:
  Evaluator& evaluator_;
  std::map<std::string, std::unique_ptr<DerivedShape>> shapes_;
};

// A configuration made runnable on a derived shape, or why it cannot run there
// ("skipped: constraint `Nq == 1` is false").
struct ShapePlan {
  std::optional<Plan> plan;
  std::string excluded;
};
ShapePlan plan_on(Evaluator& evaluator, const KernelSpec& kernel, const Config& config, const PreparedShape& shape);

// One run's output buffers.
using Outputs = std::vector<std::vector<std::byte>>;

}  // namespace attn

#include "tuner/ops/operation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/attention.hpp"
#include "tuner/ops/deformable.hpp"
#include "tuner/ops/linear_attention.hpp"
#include "tuner/ops/multihead_attention.hpp"
#include "tuner/ops/similarity.hpp"

namespace attn {
namespace {

// Every operation attn-tune knows. A new family adds its accessor here.
std::vector<const Operation*> registry() {
  return {&attention_operation(), &multihead_attention_operation(), &linear_attention_operation(), &similarity_operation(),
          &deformable_operation()};
}

}  // namespace

CacheGrowthPlan Operation::cache_growth(const nlohmann::json& fields, int steps) const {
  (void)fields;
  (void)steps;
  CacheGrowthPlan plan;
  plan.not_applicable = fmt::format("operation '{}' has no decode cache", name());
  return plan;
}

nlohmann::json Operation::with_batch(const nlohmann::json& fields, int n) const {
  nlohmann::json out = fields;
  out[batch_field()] = n;
  return out;
}

std::vector<std::string> Operation::number_variable_names() const {
  std::vector<std::string> names;
  for (const auto& f : shape_fields())
    if (f.type == ShapeField::Type::Number) names.push_back(f.name);
  return names;
}

NumberBindings Operation::number_variables(const nlohmann::json& fields) const {
  NumberBindings numbers;
  for (const auto& name : number_variable_names())
    if (fields.contains(name) && fields.at(name).is_number()) numbers[name] = fields.at(name).get<double>();
  return numbers;
}

std::vector<std::string> Operation::buffer_names(const nlohmann::json& fields) const {
  const auto problem = make_problem(fields, 0);
  std::vector<std::string> names;
  for (const auto& b : problem->buffers()) names.push_back(b.name);
  return names;
}

void Problem::set_reference_outputs(std::vector<std::vector<std::byte>>) {
  throw Error("this operation is verified against its CPU reference, not a kernel's outputs");
}

const Operation& spec_operation(const Spec& spec) {
  return spec.custom_operation ? *spec.custom_operation : find_operation(spec.operation);
}

const Operation& find_operation(const std::string& name) {
  for (const Operation* op : registry())
    if (op->name() == name) return *op;
  throw UsageError(fmt::format("unknown operation '{}' (known: {})", name, fmt::join(operation_names(), ", ")));
}

std::vector<std::string> operation_names() {
  std::vector<std::string> names;
  for (const Operation* op : registry()) names.push_back(op->name());
  return names;
}

}  // namespace attn

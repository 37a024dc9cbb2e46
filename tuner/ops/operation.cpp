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
  return {&attention_operation(), &multihead_attention_operation(), &linear_attention_operation(),
          &similarity_operation(), &deformable_operation()};
}

}  // namespace

nlohmann::json VerifyReport::to_json() const {
  return {{"passed", passed},          {"rel_l2", rel_l2},         {"max_abs", max_abs},
          {"rows_checked", rows_checked}, {"rows_total", rows_total}, {"nonfinite", nonfinite},
          {"worst", worst}};
}

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

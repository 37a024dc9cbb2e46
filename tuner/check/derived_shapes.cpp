#include "tuner/check/derived_shapes.hpp"

#include <fmt/format.h>

#include "tuner/check/output_layout.hpp"

namespace attn {
namespace {

// "B=8,D=128,Hkv=8,Hq=32,Nkv=4096,Nq=1,causal=1,dtype=f16": the fields that are set.
std::string shape_label(const nlohmann::json& fields) {
  std::string s;
  for (const auto& [k, v] : fields.items()) {
    if (v.is_null() || v.is_object() || (v.is_number() && v.get<double>() == 0 && k != "B")) continue;
    s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

}  // namespace

nlohmann::json with_field(nlohmann::json fields, const std::string& name, const nlohmann::json& value) {
  fields[name] = value;
  return fields;
}

DerivedShape& DerivedShapes::get(const nlohmann::json& fields, const std::string& tag) {
  const std::string key = tag + "|" + fields.dump();
  auto it = shapes_.find(key);
  if (it == shapes_.end()) {
    auto shape = std::make_unique<DerivedShape>();
    shape->prepared = evaluator_.prepare_fields(shape_label(fields), fields);
    shape->layouts = output_layouts(*shape->prepared.problem);
    it = shapes_.emplace(key, std::move(shape)).first;
  }
  return *it->second;
}

ShapePlan plan_on(Evaluator& evaluator, const KernelSpec& kernel, const Config& config, const PreparedShape& shape) {
  ShapePlan sp;
  ConfigResult scratch;  // make_plan records defines and resources: not the job's
  try {
    sp.plan = evaluator.make_plan(kernel, config, shape, scratch);
  } catch (const Outcome& o) {
    sp.excluded = fmt::format("{}: {}", status_name(o.status), o.reason);
  }
  return sp;
}

}  // namespace attn

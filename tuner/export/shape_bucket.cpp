#include "tuner/export/shape_bucket.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {
namespace {

FieldType type_of(const nlohmann::json& v) {
  if (v.is_string()) return FieldType::text;
  if (v.is_number_integer() || v.is_boolean()) return FieldType::integer;
  return FieldType::number;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::pair<long long, long long> pow2_range(long long value) {
  if (value < 1) return {0, 1};
  long long lo = 1;
  while (lo <= value / 2) lo *= 2;
  return {lo, lo * 2};
}

std::vector<BucketField> bucket_scheme(const std::string& operation, const std::vector<nlohmann::json>& shapes_fields) {
  const auto known = operation_names();
  if (std::find(known.begin(), known.end(), operation) != known.end()) {
    const ShapeBucketFields own = find_operation(operation).bucket_fields();
    if (!own.exact.empty() || !own.pow2_range.empty()) {
      // A field's type is the one the shapes give it (an integer where none has it: bucket_of then names it).
      auto typed = [&](const std::string& name, BucketRule rule) {
        for (const auto& fields : shapes_fields)
          if (fields.contains(name) && !fields.at(name).is_null()) return BucketField{name, rule, type_of(fields.at(name))};
        return BucketField{name, rule, FieldType::integer};
      };
      std::vector<BucketField> scheme;
      for (const auto& name : own.exact) scheme.push_back(typed(name, BucketRule::exact));
      for (const auto& name : own.pow2_range) scheme.push_back(typed(name, BucketRule::pow2_range));
      return scheme;
    }
  }
  // Every field some shape has; a field that is an integer in one shape and
  // fractional in another is a number, bucketed exactly.
  std::vector<BucketField> scheme;
  for (const auto& fields : shapes_fields) {
    for (const auto& [name, v] : fields.items()) {
      if (v.is_null()) continue;
      auto it = std::find_if(scheme.begin(), scheme.end(), [&](const BucketField& f) { return f.name == name; });
      if (it == scheme.end()) it = scheme.insert(scheme.end(), BucketField{name, BucketRule::exact, type_of(v)});
      if (it->type == FieldType::integer && type_of(v) == FieldType::number) it->type = FieldType::number;
      it->rule = it->type == FieldType::integer ? BucketRule::pow2_range : BucketRule::exact;
    }
  }
  return scheme;
}

ShapeBucket bucket_of(const std::vector<BucketField>& scheme, const nlohmann::json& fields) {
  ShapeBucket bucket;
  for (const auto& f : scheme) {
    if (!fields.contains(f.name) || fields.at(f.name).is_null())
      throw UsageError(fmt::format("shape without the field '{}': {}", f.name, fields.dump()));
    const auto& v = fields.at(f.name);
    const bool fits = type_of(v) == f.type || (f.type == FieldType::number && v.is_number());
    if (!fits)
      throw UsageError(fmt::format("shape field '{}' is {}, where other shapes have another type", f.name, v.dump()));
    BucketValue b;
    const nlohmann::json value = v.is_boolean() ? nlohmann::json(v.get<bool>() ? 1 : 0) : v;
    if (f.rule == BucketRule::exact) b.exact = value;
    else std::tie(b.lo, b.hi) = pow2_range(value.get<long long>());
    bucket.values.push_back(std::move(b));
  }
  return bucket;
}

std::string ShapeBucket::label(const std::vector<BucketField>& fields) const {
  std::string s;
  for (std::size_t i = 0; i < fields.size() && i < values.size(); ++i) {
    const auto& v = values[i];
    s += s.empty() ? "" : " ";
    if (fields[i].rule == BucketRule::exact) s += fmt::format("{}={}", fields[i].name, value_text(v.exact));
    else s += fmt::format("{}=[{},{})", fields[i].name, v.lo, v.hi);
  }
  return s;
}

}  // namespace attn

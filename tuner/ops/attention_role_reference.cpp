#include "tuner/ops/attention_role_reference.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/ops/attention.hpp"
#include "tuner/ops/attention_reference.hpp"
#include "tuner/ops/attention_shape.hpp"

namespace attn {
namespace {

const ShapeField* attention_field(const std::string& name) {
  static const std::vector<ShapeField> fields = attention_operation().shape_fields();
  const auto it = std::find_if(fields.begin(), fields.end(), [&](const ShapeField& f) { return f.name == name; });
  return it == fields.end() ? nullptr : &*it;
}

// Elements a role's buffer holds on SHAPE.
long long role_elements(const std::string& role, const AttentionShape& s) {
  if (role == "q" || role == "o") return static_cast<long long>(s.q_elements());
  if (role == "k" || role == "v") return static_cast<long long>(s.kv_elements());
  if (role == "mask") return static_cast<long long>(s.mask_elements());
  return s.Hq;  // sinks
}

}  // namespace

const std::vector<std::string>& attention_roles() {
  static const std::vector<std::string> roles = {"q", "k", "v", "o", "mask", "sinks"};
  return roles;
}

bool attention_role_required(const std::string& role) { return role != "mask" && role != "sinks"; }

std::string attention_field_kind(const std::string& name, std::vector<std::string>* choices) {
  const ShapeField* f = attention_field(name);
  if (!f) return "";
  if (choices) *choices = f->choices;
  switch (f->type) {
    case ShapeField::Type::Integer: return "integer";
    case ShapeField::Type::Number: return "number";
    case ShapeField::Type::Choice: return "choice";
    case ShapeField::Type::IntegerList: return "";  // thd lengths: the roles' buffers are [B][H][N][D]
  }
  return "";
}

nlohmann::json attention_fields(const AttentionRoleReference& ref, const Bindings& vars) {
  nlohmann::json out = nlohmann::json::object();
  for (const ShapeField& f : attention_operation().shape_fields()) {
    if (f.type == ShapeField::Type::IntegerList) continue;
    if (const auto it = ref.integers.find(f.name); it != ref.integers.end()) {
      out[f.name] = it->second->eval(vars);
    } else if (const auto lit = ref.literals.find(f.name); lit != ref.literals.end()) {
      out[f.name] = lit->second;
    } else if (f.default_value.is_string() && f.type == ShapeField::Type::Integer) {
      out[f.name] = out.at(f.default_value.get<std::string>());  // Hkv = Hq, Nkv = Nq
    } else {
      out[f.name] = f.default_value;
    }
  }
  out["dtype"] = "f32";  // the reference reads every buffer as doubles; the kernel's element types are its own
  out["mask"] = ref.roles.contains("mask") ? 1 : 0;
  out["sinks"] = ref.roles.contains("sinks") ? 1 : 0;
  return out;
}

std::string attention_role_problem(const AttentionRoleReference& ref, const Bindings& vars,
                                   const std::function<long long(const std::string&)>& size_of) {
  nlohmann::json fields;
  try {
    fields = attention_fields(ref, vars);
  } catch (const ExpressionError& e) {
    return fmt::format("the attention reference's shape: {}", e.what());
  }
  if (std::string problem = attention_operation().check_shape(fields); !problem.empty())
    return fmt::format("the attention reference's shape: {}", problem);
  const AttentionShape s = AttentionShape::from_json(fields);
  for (const auto& [role, buffer] : ref.roles) {
    const long long have = size_of(buffer), want = role_elements(role, s);
    if (have != want)
      return fmt::format("buffer '{}' (the attention reference's {}) has {} elements; the attention shape needs {}", buffer,
                         role, have, want);
  }
  return {};
}

std::vector<double> attention_role_output(const AttentionRoleReference& ref, const Bindings& vars,
                                          const std::function<std::vector<double>(const std::string&)>& values_of) {
  const AttentionShape s = AttentionShape::from_json(attention_fields(ref, vars));
  const auto floats = [&](const std::string& role) {
    const auto it = ref.roles.find(role);
    if (it == ref.roles.end()) return std::vector<float>{};
    const std::vector<double> v = values_of(it->second);
    return std::vector<float>(v.begin(), v.end());
  };
  AttentionValues in{floats("q"), floats("k"), floats("v"), floats("mask"), floats("sinks")};
  std::vector<double> o(s.q_elements());
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.Hq; ++h)
      for (int i = 0; i < s.Nq; ++i)
        attention_reference_row(s, in, b, h, i, o.data() + ((std::size_t(b) * s.Hq + h) * s.Nq + i) * s.D);
  return o;
}

}  // namespace attn

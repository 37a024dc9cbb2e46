#include "tuner/spec/kernel_arguments_spec.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/spec/json_field.hpp"

namespace attn {
namespace {

KernelArgument named_argument(const JsonField& f, const ArgumentNames& names, const std::string& name) {
  KernelArgument a;
  a.name = name;
  if (name == "workspace") {
    a.kind = KernelArgument::Kind::workspace;
    return a;
  }
  if (name == "params") {
    if (!names.params_struct) f.fail("this operation has no parameter struct: pass scalars instead");
    a.kind = KernelArgument::Kind::params;
    return a;
  }
  a.kind = KernelArgument::Kind::buffer;
  for (const auto& [shape, buffers] : names.buffers_by_shape)
    if (std::find(buffers.begin(), buffers.end(), name) == buffers.end())
      f.fail(fmt::format(
          "unknown buffer '{}'{} (known: {}, workspace, params; or a scalar "
          "{{\"type\": ..., \"value\": ...}})",
          name, names.buffers_by_shape.size() > 1 ? fmt::format(" for shape '{}'", shape) : "", fmt::join(buffers, ", ")));
  return a;
}

// {"buffer": B, "null_when": EXPRESSION}: B, or a null pointer where the shape turns B's feature off.
KernelArgument optional_buffer(const JsonField& f, const ArgumentNames& names) {
  f.expect_object({"buffer", "null_when"});
  const JsonField buffer = f.member("buffer");
  KernelArgument a = named_argument(buffer, names, buffer.string());
  if (a.kind != KernelArgument::Kind::buffer) buffer.fail("expected a buffer's name: only a buffer can be passed as null");
  const JsonField when = f.member("null_when");
  try {
    a.null_when.emplace(when.expression_text(), names.integers);
  } catch (const ExpressionError& e) {
    when.fail(e.what());
  }
  return a;
}

KernelArgument scalar_argument(const JsonField& f, const ArgumentNames& names) {
  f.expect_object({"name", "type", "value"});
  KernelArgument a;
  a.kind = KernelArgument::Kind::scalar;
  if (auto n = f.optional_member("name")) a.name = n->identifier("argument name");
  const JsonField type = f.member("type");
  const std::string t = type.string();
  if (t == "int32") a.type = KernelArgument::Type::int32;
  else if (t == "int64") a.type = KernelArgument::Type::int64;
  else if (t == "float32") a.type = KernelArgument::Type::float32;
  else type.fail(fmt::format("unknown scalar type '{}' (known: int32, int64, float32)", t));

  const JsonField value = f.member("value");
  std::string text;
  if (value.value().is_number()) text = value.value().dump();  // a literal: 128, 0.125
  else text = value.expression_text();
  try {
    if (a.type == KernelArgument::Type::float32) {
      std::vector<std::string> all = names.integers;
      all.insert(all.end(), names.numbers.begin(), names.numbers.end());
      a.number.emplace(text, all);
    } else {
      a.integer.emplace(text, names.integers);
    }
  } catch (const ExpressionError& e) {
    // Integer arguments see no real-valued shape fields: say so when that is the mistake.
    const bool real_name = a.type != KernelArgument::Type::float32 &&
                           std::any_of(names.numbers.begin(), names.numbers.end(), [&](const std::string& n) {
                             return std::string(e.what()).find("'" + n + "'") != std::string::npos;
                           });
    value.fail(fmt::format("{}{}", e.what(), real_name ? " (a real-valued shape field: declare the argument float32)" : ""));
  }
  return a;
}

}  // namespace

const char* type_name(KernelArgument::Type type) {
  switch (type) {
    case KernelArgument::Type::int32: return "int32";
    case KernelArgument::Type::int64: return "int64";
    case KernelArgument::Type::float32: return "float32";
  }
  return "?";
}

std::vector<KernelArgument> load_kernel_arguments(const JsonField& f, const ArgumentNames& names) {
  std::vector<KernelArgument> arguments;
  for (const auto& element : f.elements()) {
    KernelArgument a;
    if (element.value().is_null()) {  // a null pointer, always
      a.kind = KernelArgument::Kind::null;
      a.name = "null";
    } else if (element.value().is_string()) a = named_argument(element, names, element.string());
    else if (element.value().is_object() && element.has("buffer")) a = optional_buffer(element, names);
    else if (element.value().is_object()) a = scalar_argument(element, names);
    else
      element.fail(
          "expected a buffer name, \"workspace\", \"params\", null, a buffer that may be null "
          "{\"buffer\": ..., \"null_when\": ...} or a scalar {\"name\": ..., \"type\": ..., \"value\": ...}");
    a.field = element.path();
    arguments.push_back(std::move(a));
  }
  if (arguments.empty()) f.fail("expected at least one argument (leave `arguments` out for the operation's default)");
  return arguments;
}

}  // namespace attn

#include "tuner/load/custom_operation_loader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/identifier.hpp"
#include "tuner/ops/attention.hpp"
#include "tuner/ops/cpu_references.hpp"
#include "tuner/ops/custom_operation.hpp"
#include "tuner/spec/json_field.hpp"

namespace attn {
namespace {

std::shared_ptr<const Expression> expression(const JsonField& f, const std::vector<std::string>& names) {
  try {
    return std::make_shared<const Expression>(f.expression_text(), names);
  } catch (const ExpressionError& e) {
    f.fail(e.what());
  }
}

CustomBuffer load_buffer(const std::string& name, const JsonField& f, const std::vector<std::string>& fields) {
  f.expect_object({"type", "size", "init", "output", "role", "reset"});
  CustomBuffer b;
  b.name = name;
  const JsonField type = f.member("type");
  if (!parse_buffer_type(type.string(), b.type))
    type.fail(fmt::format("unknown element type '{}' (known: f32, f16, bf16, i32)", type.string()));
  b.size = expression(f.member("size"), fields);
  if (auto output = f.optional_member("output")) {
    if (!output->value().is_boolean()) output->fail("expected true or false");
    b.output = output->value().get<bool>();
    b.role = b.output ? BufferRole::output : BufferRole::input;
  }
  if (auto role = f.optional_member("role")) {
    if (!parse_buffer_role(role->string(), b.role))
      role->fail(fmt::format("unknown role '{}' (known: input, output, inout)", role->string()));
    if (f.has("output") && b.output != (b.role == BufferRole::output))
      role->fail(fmt::format("\"output\": {} says otherwise: give the role only", b.output));
    b.output = b.role == BufferRole::output;
  }
  if (auto init = f.optional_member("init")) {
    // A number, or its text: 0, -1e30, "-inf".
    const std::string text = init->value().is_number() ? init->value().dump() : init->string();
    if (!parse_buffer_init(text, b.init, b.init_value))
      init->fail(
          fmt::format("unknown init '{}' (known: random, zeros, iota, or a constant: a number, \"-inf\", "
                      "\"inf\", \"nan\")",
                      text));
    if (b.type == BufferType::i32 && b.init == BufferInit::constant &&
        (!std::isfinite(b.init_value) || b.init_value != std::floor(b.init_value)))
      init->fail(fmt::format("an i32 buffer's constant must be an integer, not {}", text));
    b.has_init = true;
  }
  // Outputs read before they are written, and state, are restored before every run unless told otherwise.
  if (b.role == BufferRole::inout || (b.role == BufferRole::output && b.has_init)) b.reset = BufferReset::every_run;
  if (auto reset = f.optional_member("reset")) {
    const std::string r = reset->string();
    if (r == "once") b.reset = BufferReset::once;
    else if (r == "every_run") b.reset = BufferReset::every_run;
    else reset->fail(fmt::format("unknown reset '{}' (known: once, every_run)", r));
    if (b.role == BufferRole::input)
      reset->fail("an input is never written, so never reset: declare \"role\": \"inout\" for one the kernel writes");
    if (b.role == BufferRole::output && !b.has_init)
      reset->fail("an output without an init is poisoned (NaN) before every run: give it the \"init\" it is read with");
  }
  return b;
}

// A registered CPU function whose fields and buffers the declaration has, in the right roles.
const CpuReference* load_cpu_reference(const JsonField& f, const CustomDefinition& def) {
  const std::string name = f.string();
  const CpuReference* ref = find_cpu_reference(name);
  if (!ref) f.fail(fmt::format("unknown CPU reference '{}' (known: {})", name, fmt::join(cpu_reference_names(), ", ")));
  for (const auto& field : ref->fields)
    if (std::find(def.fields.begin(), def.fields.end(), field) == def.fields.end())
      f.fail(fmt::format("'{}' ({}) reads shape field '{}': declare it in shape_fields", name, ref->definition, field));
  auto check = [&](const std::string& buffer, bool output) {
    const auto it =
        std::find_if(def.buffers.begin(), def.buffers.end(), [&](const CustomBuffer& b) { return b.name == buffer; });
    if (it == def.buffers.end() || it->output != output)
      f.fail(fmt::format("'{}' ({}) {} buffer '{}': declare it{}", name, ref->definition, output ? "writes" : "reads",
                         buffer, output ? " with \"output\": true" : " as an input"));
  };
  for (const auto& b : ref->inputs) check(b, false);
  for (const auto& b : ref->outputs) check(b, true);
  for (const auto& b : def.buffers)
    if (b.output && std::find(ref->outputs.begin(), ref->outputs.end(), b.name) == ref->outputs.end())
      f.fail(fmt::format("'{}' does not compute output buffer '{}' (it writes {})", name, b.name,
                         fmt::join(ref->outputs, ", ")));
  return ref;
}

// The attention role reference, {"roles": {ROLE: BUFFER}, "shape": {FIELD: VALUE}}: q, k, v, o bound (mask and sinks when
// the kernel reads them), o the one output, each shape value of its field's kind.
AttentionRoleReference load_attention_reference(const JsonField& f, const CustomDefinition& def) {
  f.expect_object({"roles", "shape"});
  AttentionRoleReference ref;
  const JsonField roles = f.member("roles");
  if (!roles.value().is_object()) roles.fail("expected an object: role (q, k, v, o, mask, sinks) -> buffer");
  const auto& known = attention_roles();
  for (const auto& [role, buffer] : roles.members()) {
    if (std::find(known.begin(), known.end(), role) == known.end())
      buffer.fail(fmt::format("unknown role '{}' (known: {})", role, fmt::join(known, ", ")));
    const std::string name = buffer.string();
    const auto it =
        std::find_if(def.buffers.begin(), def.buffers.end(), [&](const CustomBuffer& b) { return b.name == name; });
    if (it == def.buffers.end()) buffer.fail(fmt::format("no buffer '{}' is declared", name));
    if ((role == "o") != it->output)
      buffer.fail(role == "o" ? fmt::format("buffer '{}' is bound to o, the output: declare it with \"output\": true", name)
                              : fmt::format("buffer '{}' is an input of the reference: declare it as one", name));
    ref.roles[role] = name;
  }
  for (const auto& role : known)
    if (attention_role_required(role) && !ref.roles.contains(role))
      roles.fail(fmt::format("needs the role '{}' bound to a buffer (roles: {})", role, fmt::join(known, ", ")));
  for (const auto& b : def.buffers)
    if (b.output && b.name != ref.roles.at("o"))
      roles.fail(fmt::format("the attention reference computes one output, o ('{}'); '{}' is an output too",
                             ref.roles.at("o"), b.name));
  const JsonField shape = f.member("shape");
  if (!shape.value().is_object()) shape.fail("expected an object of attention shape fields");
  for (const auto& [name, value] : shape.members()) {
    std::vector<std::string> choices;
    const std::string kind = attention_field_kind(name, &choices);
    if (kind.empty()) {
      std::vector<std::string> names;
      for (const auto& field : attention_operation().shape_fields()) names.push_back(field.name);
      value.fail(fmt::format("not a field of the attention shape (fields: {})", fmt::join(names, ", ")));
    }
    if (name == "mask" || name == "sinks")
      value.fail(fmt::format("{0} is on when a buffer is bound to the role '{0}', off otherwise", name));
    if (name == "dtype") value.fail("the reference reads every buffer as its declared type; the buffers' types say it");
    if (kind == "integer") {
      ref.integers[name] = expression(value, def.fields);
    } else if (kind == "number") {
      ref.literals[name] = value.number();
    } else {
      const std::string c = value.string();
      if (std::find(choices.begin(), choices.end(), c) == choices.end())
        value.fail(fmt::format("'{}' is not one of: {}", c, fmt::join(choices, ", ")));
      ref.literals[name] = c;
    }
  }
  for (const char* required : {"B", "Hq", "Nq", "D"})
    if (!ref.integers.contains(required)) shape.fail(fmt::format("needs '{}' (an expression over shape_fields)", required));
  return ref;
}

}  // namespace

std::shared_ptr<const Operation> load_custom_operation(const JsonField& f) {
  f.expect_object({"description", "shape_fields", "buffers", "reference", "flops"});
  CustomDefinition def;
  for (const auto& field : f.member("shape_fields").elements()) {
    const std::string name = field.identifier("shape field name");
    if (std::find(def.fields.begin(), def.fields.end(), name) != def.fields.end()) field.fail("repeated");
    def.fields.push_back(name);
  }
  const JsonField buffers = f.member("buffers");
  for (const auto& [name, b] : buffers.members()) {
    if (!is_identifier(name)) b.fail("a buffer name must be an identifier");
    if (name == "workspace" || name == "params")
      b.fail(fmt::format("'{}' names an argument kind; call the buffer otherwise", name));
    def.buffers.push_back(load_buffer(name, b, def.fields));
  }
  if (std::none_of(def.buffers.begin(), def.buffers.end(), [](const CustomBuffer& b) { return b.output; }))
    buffers.fail("needs at least one output buffer (\"output\": true): it is what verification compares");
  const JsonField reference = f.member("reference");
  const char* role_key = kAttentionRoleReferenceKey;
  reference.expect_object({"kernel", "preset", "cpu", role_key});
  if (static_cast<int>(reference.has("kernel")) + reference.has("cpu") + reference.has(role_key) > 1)
    reference.fail(
        fmt::format("a reference is one of: a kernel of this spec, a CPU function (\"cpu\"), the "
                    "attention reference (\"{}\")",
                    role_key));
  if (auto cpu = reference.optional_member("cpu")) {
    if (reference.has("preset")) reference.fail("a preset is a reference kernel's: a CPU function has none");
    def.cpu_reference = load_cpu_reference(*cpu, def);
  } else if (auto attention = reference.optional_member(role_key)) {
    if (reference.has("preset")) reference.fail("a preset is a reference kernel's: the attention reference has none");
    def.attention_reference = load_attention_reference(*attention, def);
  } else {
    def.reference.kernel = reference.member("kernel").identifier("kernel name");
    if (auto preset = reference.optional_member("preset")) def.reference.preset = preset->string();
  }
  if (auto flops = f.optional_member("flops")) def.flops = expression(*flops, def.fields);
  return make_custom_operation(std::move(def));
}

}  // namespace attn

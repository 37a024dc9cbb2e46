#include "tuner/load/custom_operation_loader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/identifier.hpp"
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
  reference.expect_object({"kernel", "preset", "cpu"});
  if (auto cpu = reference.optional_member("cpu")) {
    if (reference.has("kernel") || reference.has("preset"))
      reference.fail("a reference is a kernel of this spec or a CPU function (\"cpu\"), not both");
    def.cpu_reference = load_cpu_reference(*cpu, def);
  } else {
    def.reference.kernel = reference.member("kernel").identifier("kernel name");
    if (auto preset = reference.optional_member("preset")) def.reference.preset = preset->string();
  }
  if (auto flops = f.optional_member("flops")) def.flops = expression(*flops, def.fields);
  return make_custom_operation(std::move(def));
}

}  // namespace attn

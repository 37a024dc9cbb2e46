#include "tuner/plan/signature_check.hpp"

#include <fmt/format.h>

namespace attn {
namespace {

struct Passed {
  std::string label;  // "kernels.k.arguments[3] (nb_mask1, int32)"
  bool pointer = false;
  std::size_t bytes = 0;
};

std::string argument_label(const BoundArgument& a, std::size_t index) {
  const std::string where = a.field.empty() ? fmt::format("argument {} of the operation's contract", index) : a.field;
  switch (a.kind) {
    case BoundArgument::Kind::buffer: return fmt::format("{} (buffer '{}')", where, a.name);
    case BoundArgument::Kind::workspace: return fmt::format("{} (the workspace)", where);
    case BoundArgument::Kind::null: return fmt::format("{} ('{}', passed as null)", where, a.name);
    case BoundArgument::Kind::value:
      if (a.type == "params") return fmt::format("{} (the params struct)", where);
      return a.name.empty() ? fmt::format("{} ({})", where, a.type) : fmt::format("{} ({}, {})", where, a.name, a.type);
  }
  return where;
}

std::string parameter_label(const KernelParameter& p, std::size_t index) {
  std::string text;
  switch (p.space) {
    case KernelParameter::Space::global: text = "__global "; break;
    case KernelParameter::Space::constant: text = "__constant "; break;
    case KernelParameter::Space::local: text = "__local "; break;
    default: break;
  }
  text += p.type;
  if (!p.name.empty()) text += (text.empty() ? "" : " ") + p.name;
  return text.empty() ? fmt::format("parameter {}", index) : fmt::format("parameter {} `{}`", index, text);
}

}  // namespace

std::string signature_mismatch(const std::string& entry, const std::vector<KernelParameter>& parameters,
                               const std::vector<BoundArgument>& arguments, std::size_t tensor_maps,
                               std::size_t tensor_map_bytes) {
  std::vector<Passed> passed;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const BoundArgument& a = arguments[i];
    const bool pointer = a.kind != BoundArgument::Kind::value;
    passed.push_back({argument_label(a, i), pointer, pointer ? sizeof(void*) : a.bytes.size()});
  }
  for (std::size_t t = 0; t < tensor_maps; ++t)
    passed.push_back({fmt::format("tensor_maps[{}] (a TMA tensor map)", t), false, tensor_map_bytes});

  const std::string spec_field = !arguments.empty() && !arguments.front().field.empty()
                                     ? arguments.front().field.substr(0, arguments.front().field.rfind('['))
                                     : std::string("the operation's argument contract");
  if (passed.size() != parameters.size()) {
    std::string which;
    if (passed.size() < parameters.size())
      which = fmt::format("{} gets no argument", parameter_label(parameters[passed.size()], passed.size()));
    else which = fmt::format("{} has no parameter to go to", passed[parameters.size()].label);
    return fmt::format("kernel '{}' takes {} parameters, {} passes {} arguments: {}", entry, parameters.size(), spec_field,
                       passed.size(), which);
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const KernelParameter& p = parameters[i];
    const Passed& a = passed[i];
    const std::string param = parameter_label(p, i);
    if (p.space == KernelParameter::Space::local)
      return fmt::format(
          "{} is passed to {} of '{}', a __local pointer: attn-tune passes no local memory arguments (declare "
          "the local array inside the kernel)",
          a.label, param, entry);
    const bool param_pointer = p.space == KernelParameter::Space::global || p.space == KernelParameter::Space::constant;
    if (p.space != KernelParameter::Space::unknown && param_pointer != a.pointer) {
      if (a.pointer)
        return fmt::format("{} is a pointer; {} of '{}' takes a value{}", a.label, param, entry,
                           p.bytes ? fmt::format(" of {} bytes", p.bytes) : "");
      return fmt::format("{} is a value of {} bytes; {} of '{}' takes a pointer", a.label, a.bytes, param, entry);
    }
    if (p.bytes && a.bytes && p.bytes != a.bytes)
      return fmt::format("{} is {} bytes; {} of '{}' takes {} bytes", a.label, a.bytes, param, entry, p.bytes);
  }
  return {};
}

}  // namespace attn

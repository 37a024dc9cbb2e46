#include "tuner/plan/kernel_arguments.hpp"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "tuner/record/result.hpp"

namespace attn {
namespace {

std::size_t buffer_index(const Problem& problem, const std::string& name, const KernelArgument& a) {
  const auto& buffers = problem.buffers();
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return i;
  // The loader checked every shape the kernel runs on; a derived shape (a check's) may differ.
  throw Outcome{Status::skipped, fmt::format("{}: this shape has no buffer '{}'", a.field, name), {}};
}

BoundArgument scalar(const KernelArgument& a, const Bindings& integers, const NumberBindings& numbers) {
  BoundArgument b;
  b.kind = BoundArgument::Kind::value;
  b.name = a.name;
  b.type = type_name(a.type);
  const std::string label = a.name.empty() ? a.field : fmt::format("{} ({})", a.field, a.name);
  try {
    if (a.type == KernelArgument::Type::float32) {
      const float v = static_cast<float>(a.number->eval(integers, numbers));
      b.value = v;
      b.bytes = KernelArg::value(v).bytes;
      return b;
    }
    const long long v = a.integer->eval(integers);
    b.value = v;
    if (a.type == KernelArgument::Type::int64) {
      b.bytes = KernelArg::value(static_cast<std::int64_t>(v)).bytes;
      return b;
    }
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      throw Outcome{Status::skipped,
                    fmt::format("{} = `{}` = {} does not fit an int32 (declare it int64)", label, a.integer->text(), v),
                    {}};
    b.bytes = KernelArg::value(static_cast<std::int32_t>(v)).bytes;
    return b;
  } catch (const ExpressionError& e) {
    throw Outcome{Status::skipped, fmt::format("{} cannot be evaluated: {}", label, e.what()), {}};
  }
}

bool null_here(const KernelArgument& a, const Bindings& integers) {
  try {
    return a.null_when->eval(integers) != 0;
  } catch (const ExpressionError& e) {
    throw Outcome{Status::skipped, fmt::format("{}.null_when cannot be evaluated: {}", a.field, e.what()), {}};
  }
}

// The operation's contract: every buffer in order, the workspace, the params struct.
std::vector<BoundArgument> default_arguments(const Problem& problem) {
  std::vector<BoundArgument> out;
  for (std::size_t i = 0; i < problem.buffers().size(); ++i)
    out.push_back({BoundArgument::Kind::buffer, i, {}, problem.buffers()[i].name, {}, nullptr});
  out.push_back({BoundArgument::Kind::workspace, 0, {}, "workspace", {}, nullptr});
  out.push_back({BoundArgument::Kind::value, 0, problem.params_bytes(), "params", "params", nullptr});
  return out;
}

// DECLARED (empty: the operation's contract) on PROBLEM's buffers.
std::vector<BoundArgument> bind_list(const std::vector<KernelArgument>& declared, const Problem& problem,
                                     const Bindings& integers, const NumberBindings& numbers) {
  if (declared.empty()) return default_arguments(problem);
  std::vector<BoundArgument> out;
  for (const auto& a : declared) {
    switch (a.kind) {
      case KernelArgument::Kind::buffer:
        if (a.null_when && null_here(a, integers)) {
          if (problem.buffers()[buffer_index(problem, a.name, a)].is_output)
            throw Outcome{Status::skipped,
                          fmt::format("{}: output '{}' is passed as null (`{}`): verification needs it written", a.field,
                                      a.name, a.null_when->text()),
                          {}};
          out.push_back({BoundArgument::Kind::null, 0, {}, a.name, {}, nullptr});
        } else {
          out.push_back({BoundArgument::Kind::buffer, buffer_index(problem, a.name, a), {}, a.name, {}, nullptr});
        }
        break;
      case KernelArgument::Kind::null: out.push_back({BoundArgument::Kind::null, 0, {}, "null", {}, nullptr}); break;
      case KernelArgument::Kind::workspace:
        out.push_back({BoundArgument::Kind::workspace, 0, {}, "workspace", {}, nullptr});
        break;
      case KernelArgument::Kind::params:
        out.push_back({BoundArgument::Kind::value, 0, problem.params_bytes(), "params", "params", nullptr});
        break;
      case KernelArgument::Kind::scalar: out.push_back(scalar(a, integers, numbers)); break;
    }
    out.back().field = a.field;
  }
  return out;
}

}  // namespace

std::vector<BoundArgument> bind_arguments(const KernelSpec& kernel, const Problem& problem, const Bindings& integers,
                                          const NumberBindings& numbers) {
  return bind_list(kernel.arguments, problem, integers, numbers);
}

std::vector<std::vector<BoundArgument>> bind_launch_arguments(const KernelSpec& kernel, const Problem& problem,
                                                              const Bindings& integers, const NumberBindings& numbers) {
  std::vector<std::vector<BoundArgument>> out;
  for (std::size_t l = 0; l < kernel.launches.size(); ++l)
    out.push_back(bind_list(kernel.launch_arguments(l), problem, integers, numbers));
  return out;
}

std::vector<KernelArg> kernel_args(const std::vector<BoundArgument>& arguments,
                                   const std::vector<std::unique_ptr<Buffer>>& buffers, const Buffer& workspace) {
  std::vector<KernelArg> args;
  args.reserve(arguments.size());
  for (const auto& a : arguments) {
    switch (a.kind) {
      case BoundArgument::Kind::buffer: args.push_back(KernelArg::of(*buffers.at(a.buffer))); break;
      case BoundArgument::Kind::workspace: args.push_back(KernelArg::of(workspace)); break;
      case BoundArgument::Kind::null: args.push_back(KernelArg::null_pointer()); break;
      case BoundArgument::Kind::value: {
        KernelArg v;
        v.bytes = a.bytes;
        args.push_back(std::move(v));
      }
    }
  }
  return args;
}

nlohmann::json describe_arguments(const std::vector<BoundArgument>& arguments) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : arguments) {
    nlohmann::json j = {{"name", a.name}};
    switch (a.kind) {
      case BoundArgument::Kind::buffer: j["kind"] = "buffer"; break;
      case BoundArgument::Kind::workspace: j["kind"] = "workspace"; break;
      case BoundArgument::Kind::null: j["kind"] = "null"; break;
      case BoundArgument::Kind::value:
        j["kind"] = "value";
        j["type"] = a.type;
        j["bytes"] = a.bytes.size();
        if (!a.value.is_null()) j["value"] = a.value;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace attn

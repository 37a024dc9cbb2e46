// The one place a launch's argument list is assembled: a kernel's declared
// `arguments` (or the operation's default) resolved for one shape and
// configuration, then turned into the backend's KernelArgs.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// One argument resolved: a buffer of the problem (by its index in buffers()),
// the workspace, a null pointer (an optional input the shape turns off), or
// bytes passed by value (a scalar or the params struct).
struct BoundArgument {
  enum class Kind { buffer, workspace, value, null };
  Kind kind = Kind::value;
  std::size_t buffer = 0;
  std::vector<std::byte> bytes;
  std::string name;      // buffer name, "workspace", "params", or the scalar's name
  std::string type;      // "int32" | "int64" | "float32" | "params" for values; empty otherwise
  nlohmann::json value;  // a scalar's value, for the record
  std::string field;     // where the spec writes it ("kernels.k.arguments[3]"); empty for the operation's default
};

// KERNEL's own `arguments` (not a launch's) on PROBLEM's buffers, with expressions evaluated over
// INTEGERS (shape variables and the configuration) and NUMBERS. Throws
// Outcome{skipped} when an expression cannot be evaluated or an int32 does
// not fit, naming the argument.
std::vector<BoundArgument> bind_arguments(const KernelSpec& kernel, const Problem& problem, const Bindings& integers,
                                          const NumberBindings& numbers);

// One list per launch of KERNEL, in launch order: the launch's own `arguments`, else the kernel's,
// else the operation's contract. A buffer in several lists is the same buffer: launch 1 reads what
// launch 0 wrote (a workspace, partial outputs).
std::vector<std::vector<BoundArgument>> bind_launch_arguments(const KernelSpec& kernel, const Problem& problem,
                                                              const Bindings& integers, const NumberBindings& numbers);

std::vector<KernelArg> kernel_args(const std::vector<BoundArgument>& arguments,
                                   const std::vector<std::unique_ptr<Buffer>>& buffers, const Buffer& workspace);

// [{"name", "kind", "type"?, "value"?}, ...]: how results and launch bundles record the list.
nlohmann::json describe_arguments(const std::vector<BoundArgument>& arguments);

}  // namespace attn

// A kernel's declared argument list: what each position of its signature
// receives, so that kernels not written to an operation's contract (pointers,
// strides and scalars, FlashAttention-2 style) are launched as they are.
// Without one, the operation's contract applies: every buffer in order, the
// workspace, then the parameter struct by value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/spec/expression.hpp"

namespace attn {

class JsonField;

struct KernelArgument {
  enum class Kind { buffer, workspace, params, scalar, null };
  enum class Type { int32, int64, float32 };

  Kind kind = Kind::params;
  std::string name;  // the buffer's name; a scalar's name (optional, for messages)
  Type type = Type::int32;
  std::optional<Expression> integer;      // int32 / int64 scalars
  std::optional<FloatExpression> number;  // float32 scalars
  // A buffer passed as a null pointer where this is non-zero (the shape turns its feature off):
  // {"buffer": "mask", "null_when": "mask == 0"}.
  std::optional<Expression> null_when;
  std::string field;  // "kernels.k.arguments[3]": where it is written, for run-time messages
};

// Shape variables an argument expression may use: integers (shape variables
// and parameters) and numbers (the operation's real-valued shape fields).
struct ArgumentNames {
  std::vector<std::string> integers;
  std::vector<std::string> numbers;
  // Per shape the kernel runs on: the buffers the operation makes for it.
  std::map<std::string, std::vector<std::string>> buffers_by_shape;
  bool params_struct = true;  // whether the operation has one to pass
};

// Reads F, an array of "BUFFER" | "workspace" | "params" | null (a null pointer) |
// {"buffer": BUFFER, "null_when": EXPRESSION} (a null pointer where EXPRESSION is non-zero) |
// {"name": N, "type": "int32"|"int64"|"float32", "value": EXPRESSION}.
// Fails naming the element: unknown buffers (per shape), types, names in expressions.
std::vector<KernelArgument> load_kernel_arguments(const JsonField& f, const ArgumentNames& names);

const char* type_name(KernelArgument::Type type);

}  // namespace attn

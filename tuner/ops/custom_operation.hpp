// An operation declared in a spec instead of in C++: integer shape fields,
// buffers (name, element type, size expression, initial values, input or
// output) and a reference: a kernel of the same spec, run once per shape on
// the same device, or a CPU function of attn-tune's (tuner/ops/cpu_references). Outputs are poisoned before every run and
// compared with the reference's by relative L2 and max abs, as every operation's are.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/ops/attention_role_reference.hpp"
#include "tuner/ops/cpu_references.hpp"
#include "tuner/ops/custom_buffers.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

struct CustomBuffer {
  std::string name;
  BufferType type = BufferType::f32;
  std::shared_ptr<const Expression> size;  // elements, over the shape fields
  BufferInit init = BufferInit::random;
  double init_value = 0;  // init == constant: the value
  bool output = false;    // role == output: compared with the reference
  BufferRole role = BufferRole::input;
  // Outputs without a declared init (has_init false) are poisoned instead; inputs are never reset.
  bool has_init = false;
  BufferReset reset = BufferReset::never;
};

struct CustomDefinition {
  std::vector<std::string> fields;    // integer shape fields, all required
  std::vector<CustomBuffer> buffers;  // in declaration order
  DeviceReference reference;          // used when cpu_reference is null
  const CpuReference* cpu_reference = nullptr;
  // Or the attention operation's reference, the buffers in its roles (both null: the reference kernel).
  std::optional<AttentionRoleReference> attention_reference;
  std::shared_ptr<const Expression> flops;  // optional; throughput in GFLOP/s when given
};

std::shared_ptr<const Operation> make_custom_operation(CustomDefinition definition);

}  // namespace attn

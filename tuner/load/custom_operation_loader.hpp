// Reads a spec's "custom" section: the operation a spec declares for itself
// (docs/your-own-kernel.md, "A custom operation").
#pragma once

#include <memory>

namespace attn {

class JsonField;
class Operation;

// F: {"shape_fields": [NAME...], "buffers": {NAME: {"type", "size", "init", "output"}},
//     "reference": {"kernel", "preset"?}, "flops"?}. Fails naming the field.
// The reference kernel's existence is checked once the kernels are loaded.
std::shared_ptr<const Operation> load_custom_operation(const JsonField& f);

}  // namespace attn

// What a TMA tensor map describes, before any driver is involved: the global
// tensor (dimensions and byte strides, innermost first), the box one bulk
// tensor copy moves, the element type and the shared-memory swizzle. The CUDA
// backend encodes it with cuTensorMapEncodeTiled at launch time, when the
// buffer's device address is known (tuner/backend/cuda/tensor_map.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class TensorElement { f16, bf16, f32 };

// 2 or 4
std::size_t element_bytes(TensorElement e);
// "f16", "bf16", "f32"
const char* element_name(TensorElement e);

struct TensorMapDescription {
  std::string name;  // for messages: "tensor_maps[1] (k)"
  TensorElement element = TensorElement::f16;
  std::vector<std::uint64_t> dims;     // elements per dimension, innermost first (1 to 5)
  std::vector<std::uint64_t> strides;  // bytes from one index to the next of dims[1..]: dims.size() - 1 entries
  std::vector<std::uint32_t> box;      // elements per dimension of one copy, innermost first
  int swizzle_bytes = 0;               // 0 (none), 32, 64 or 128

  // Strides of a densely packed tensor of these dims and element.
  static std::vector<std::uint64_t> packed_strides(const std::vector<std::uint64_t>& dims, TensorElement e);
};

}  // namespace attn

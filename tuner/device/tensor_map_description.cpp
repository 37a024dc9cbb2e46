#include "tuner/device/tensor_map_description.hpp"

namespace attn {

std::size_t element_bytes(TensorElement e) { return e == TensorElement::f32 ? 4 : 2; }

const char* element_name(TensorElement e) {
  switch (e) {
    case TensorElement::f16: return "f16";
    case TensorElement::bf16: return "bf16";
    case TensorElement::f32: return "f32";
  }
  return "?";
}

std::vector<std::uint64_t> TensorMapDescription::packed_strides(const std::vector<std::uint64_t>& dims, TensorElement e) {
  std::vector<std::uint64_t> strides;
  std::uint64_t stride = element_bytes(e);
  for (std::size_t d = 0; d + 1 < dims.size(); ++d) {
    stride *= dims[d];
    strides.push_back(stride);
  }
  return strides;
}

}  // namespace attn

#include "tuner/ops/output_declaration.hpp"

#include <fmt/format.h>

namespace attn {

std::string OutputDeclaration::element_name(std::size_t index) const {
  if (dims.empty()) return fmt::format("{}[{}]", buffer, index);
  std::string coords;
  std::size_t stride = 1;
  for (const auto& [_, extent] : dims) stride *= extent;
  for (const auto& [name, extent] : dims) {
    stride /= extent;
    coords += fmt::format("{}{}={}", coords.empty() ? "" : ",", name, index / stride % extent);
  }
  return fmt::format("{}[{}]", buffer, coords);
}

std::vector<std::size_t> even_sequence_offsets(std::size_t elements, int batch) {
  std::vector<std::size_t> offsets;
  for (int b = 0; b <= batch; ++b) offsets.push_back(elements / std::size_t(batch) * std::size_t(b));
  return offsets;
}

}  // namespace attn

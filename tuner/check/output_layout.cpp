#include "tuner/check/output_layout.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

std::vector<OutputLayout> output_layouts(const Problem& problem) {
  const std::vector<OutputDeclaration> declared = problem.outputs();
  std::vector<OutputLayout> layouts;
  for (const auto& hb : problem.buffers()) {
    if (!hb.is_output) continue;
    if (layouts.size() >= declared.size() || declared[layouts.size()].buffer != hb.name)
      throw Error(
          fmt::format("the operation declares no output '{}' (declared outputs must follow buffers() order)", hb.name));
    const OutputDeclaration& d = declared[layouts.size()];
    layouts.push_back(OutputLayout{d.buffer, d.type, d.dims, d.sequence_offsets});
  }
  return layouts;
}

}  // namespace attn

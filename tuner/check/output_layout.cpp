#include "tuner/check/output_layout.hpp"

#include "tuner/ops/attention_shape.hpp"

namespace attn {
namespace {

ElementType attention_output_type(AttnDtype dtype) {
  switch (dtype) {
    case AttnDtype::F32_F16: return ElementType::F32;
    case AttnDtype::F16: return ElementType::F16;
    case AttnDtype::BF16: return ElementType::BF16;
  }
  return ElementType::F32;
}

}  // namespace

std::vector<OutputLayout> output_layouts(const std::string& operation, const nlohmann::json& fields,
                                         const Problem& problem) {
  std::vector<OutputLayout> layouts;
  for (const auto& hb : problem.buffers()) {
    if (!hb.is_output) continue;
    OutputLayout layout;
    layout.buffer = hb.name;
    if (operation == "attention" && hb.name == "o") {
      const AttentionShape s = AttentionShape::from_json(fields);
      layout.type = attention_output_type(s.dtype);
      layout.dims = {{"b", std::size_t(s.B)}, {"h", std::size_t(s.Hq)}, {"i", std::size_t(s.Nq)}, {"d", std::size_t(s.D)}};
    } else {
      layout.type = hb.data.size() % 4 == 0 ? ElementType::F32 : ElementType::F16;
    }
    layouts.push_back(std::move(layout));
  }
  return layouts;
}

}  // namespace attn

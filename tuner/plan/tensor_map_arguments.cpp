#include "tuner/plan/tensor_map_arguments.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/record/result.hpp"

namespace attn {
namespace {

[[noreturn]] void fail(const std::string& what) { throw Outcome{Status::launch_failed, what, {}}; }

TensorElement element_of(const std::string& text, const std::string& name) {
  if (text == "f16") return TensorElement::f16;
  if (text == "bf16") return TensorElement::bf16;
  if (text == "f32") return TensorElement::f32;
  fail(
      fmt::format("{}: the shape's dtype '{}' is not an element type (f16, bf16, f32); give the tensor map an "
                  "\"element\"",
                  name, text));
}

}  // namespace

TensorMapDescription describe_tensor_map(const TensorMapPlan& map, std::size_t index, const nlohmann::json& shape_fields) {
  TensorMapDescription d;
  d.name = fmt::format("tensor_maps[{}] ({})", index, map.buffer);
  const std::string element = map.element.empty() ? shape_fields.value("dtype", std::string()) : map.element;
  const TensorElement e = element_of(element, d.name);
  d.element = e;
  d.dims = map.dims;
  d.strides = TensorMapDescription::packed_strides(map.dims, e);
  d.box = map.box;
  d.swizzle_bytes = map.swizzle;
  return d;
}

std::vector<KernelArg> tensor_map_arguments(const std::vector<TensorMapPlan>& maps, const std::vector<HostBuffer>& host,
                                            const std::vector<std::unique_ptr<Buffer>>& buffers,
                                            const nlohmann::json& shape_fields) {
  std::vector<KernelArg> args;
  for (std::size_t m = 0; m < maps.size(); ++m) {
    const TensorMapPlan& t = maps[m];
    std::size_t i = 0;
    while (i < host.size() && host[i].name != t.buffer) ++i;
    if (i == host.size()) {
      std::vector<std::string> names;
      for (const auto& h : host) names.push_back(h.name);
      fail(fmt::format("tensor_maps[{}]: the operation has no buffer '{}' (buffers: {})", m, t.buffer,
                       fmt::join(names, ", ")));
    }
    args.push_back(KernelArg::tensor_map_of(*buffers[i], describe_tensor_map(t, m, shape_fields)));
  }
  return args;
}

}  // namespace attn

// The kernel arguments a plan's tensor maps become on one prepared shape: each
// names one of the operation's buffers; its element type is the spec's, else
// the shape's dtype; its strides those of the packed tensor.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/launch_plan.hpp"

namespace attn {

// Throws Outcome{launch_failed} naming the tensor map when its buffer or element type cannot be had.
std::vector<KernelArg> tensor_map_arguments(const std::vector<TensorMapPlan>& maps, const std::vector<HostBuffer>& host,
                                            const std::vector<std::unique_ptr<Buffer>>& buffers,
                                            const nlohmann::json& shape_fields);

// The description of tensor map INDEX of a plan on a shape: named "tensor_maps[1] (k)", strides packed.
TensorMapDescription describe_tensor_map(const TensorMapPlan& map, std::size_t index, const nlohmann::json& shape_fields);

}  // namespace attn

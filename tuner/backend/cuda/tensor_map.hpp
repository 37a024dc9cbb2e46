// A TensorMapDescription turned into the arguments of cuTensorMapEncodeTiled,
// with the driver's rules checked first so that a bad description fails with
// a message naming the field (not CUDA_ERROR_INVALID_VALUE), then encoded
// through the run-time-loaded driver.
//
// The enum values are <cuda.h>'s (CUtensorMapDataType, CUtensorMapSwizzle,
// ...); tensor_map.cpp checks them against the header. This header does not
// include <cuda.h>, so the mapping is testable without it.
#pragma once

#include <array>
#include <cstdint>

#include "tuner/device/tensor_map_description.hpp"

namespace attn::cu {

struct TensorMapEncoding {
  std::uint32_t data_type = 0;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, FLOAT32 = 7, BFLOAT16 = 9
  std::uint32_t rank = 0;
  std::uint64_t global_address = 0;
  std::array<std::uint64_t, 5> global_dim{};
  std::array<std::uint64_t, 4> global_strides{};  // bytes, for dims 1 .. rank - 1
  std::array<std::uint32_t, 5> box_dim{};
  std::array<std::uint32_t, 5> element_strides{};  // 1: every element of the box
  std::uint32_t interleave = 0;                    // CU_TENSOR_MAP_INTERLEAVE_NONE
  std::uint32_t swizzle = 0;                       // NONE 0, 32B 1, 64B 2, 128B 3
  std::uint32_t l2_promotion = 0;                  // NONE 0, 64B 1, 128B 2, 256B 3
  std::uint32_t oob_fill = 0;                      // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros
};

// Checks DESC against the driver's rules for a tiled map of a buffer of
// BUFFER_BYTES at ADDRESS and maps it; throws LaunchError naming the field
// ("tensor_maps[1] (k): box[0] = 128 elements (256 bytes) exceed the 128-byte swizzle span").
TensorMapEncoding tensor_map_encoding(const TensorMapDescription& desc, std::uint64_t address, std::uint64_t buffer_bytes);

// Encodes ENC into the 128-byte CUtensorMap at OUT (64-byte aligned) with the
// driver's cuTensorMapEncodeTiled; LaunchError when the driver refuses it.
void encode_tensor_map(const TensorMapEncoding& enc, const std::string& name, void* out);

}  // namespace attn::cu

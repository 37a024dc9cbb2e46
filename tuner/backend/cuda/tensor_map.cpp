#include "tuner/backend/cuda/tensor_map.hpp"

#include <fmt/format.h>

#include "tuner/backend/cuda/cuda_driver.hpp"
#include "tuner/core/error.hpp"

namespace attn::cu {
namespace {

static_assert(CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == 6 && CU_TENSOR_MAP_DATA_TYPE_FLOAT32 == 7 &&
              CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == 9);
static_assert(CU_TENSOR_MAP_SWIZZLE_NONE == 0 && CU_TENSOR_MAP_SWIZZLE_32B == 1 && CU_TENSOR_MAP_SWIZZLE_64B == 2 &&
              CU_TENSOR_MAP_SWIZZLE_128B == 3);
static_assert(CU_TENSOR_MAP_L2_PROMOTION_L2_128B == 2 && CU_TENSOR_MAP_INTERLEAVE_NONE == 0 &&
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE == 0);
static_assert(sizeof(CUtensorMap) == 128 && alignof(CUtensorMap) >= 64);  // ptx::tensor_map in the kernels

std::uint32_t data_type(TensorElement e) {
  switch (e) {
    case TensorElement::f16: return 6;
    case TensorElement::bf16: return 9;
    case TensorElement::f32: return 7;
  }
  return 0;
}

[[noreturn]] void fail(const TensorMapDescription& d, const std::string& what) {
  throw LaunchError(fmt::format("{}: {}", d.name, what));
}

}  // namespace

TensorMapEncoding tensor_map_encoding(const TensorMapDescription& d, std::uint64_t address, std::uint64_t buffer_bytes) {
  const std::size_t rank = d.dims.size();
  const std::uint64_t elem = element_bytes(d.element);
  if (rank < 1 || rank > 5) fail(d, fmt::format("dims has {} entries; a tensor map has 1 to 5", rank));
  if (d.strides.size() != rank - 1)
    fail(d, fmt::format("strides has {} entries; {} dims need {}", d.strides.size(), rank, rank - 1));
  if (d.box.size() != rank) fail(d, fmt::format("box has {} entries; it needs one per dim ({})", d.box.size(), rank));
  if (d.swizzle_bytes != 0 && d.swizzle_bytes != 32 && d.swizzle_bytes != 64 && d.swizzle_bytes != 128)
    fail(d, fmt::format("swizzle = {}; it must be 0, 32, 64 or 128 (bytes)", d.swizzle_bytes));
  if (address % 16 != 0) fail(d, fmt::format("the buffer's address {:#x} is not 16-byte aligned", address));

  TensorMapEncoding e;
  e.data_type = data_type(d.element);
  e.rank = static_cast<std::uint32_t>(rank);
  e.global_address = address;
  std::uint64_t last_byte = elem;  // one past the last element's last byte, from the start
  for (std::size_t i = 0; i < rank; ++i) {
    if (d.dims[i] < 1 || d.dims[i] > (std::uint64_t{1} << 32))
      fail(d, fmt::format("dims[{}] = {}; it must be 1 to 2^32", i, d.dims[i]));
    if (d.box[i] < 1 || d.box[i] > 256) fail(d, fmt::format("box[{}] = {}; it must be 1 to 256", i, d.box[i]));
    e.global_dim[i] = d.dims[i];
    e.box_dim[i] = d.box[i];
    e.element_strides[i] = 1;
    if (i == 0) {
      last_byte += (d.dims[0] - 1) * elem;
      continue;
    }
    const std::uint64_t s = d.strides[i - 1];
    if (s % 16 != 0 || s >= (std::uint64_t{1} << 40))
      fail(d, fmt::format("strides[{}] = {} bytes; it must be a multiple of 16 under 2^40", i - 1, s));
    e.global_strides[i - 1] = s;
    last_byte += (d.dims[i] - 1) * s;
  }
  if (rank > 1 && d.strides[0] < d.dims[0] * elem)
    fail(d, fmt::format("strides[0] = {} bytes is less than a row of dims[0] = {} {} elements", d.strides[0], d.dims[0],
                        element_name(d.element)));
  if (last_byte > buffer_bytes)
    fail(d, fmt::format("the tensor spans {} bytes; its buffer holds {}", last_byte, buffer_bytes));
  const std::uint64_t inner = std::uint64_t{d.box[0]} * elem;
  if (inner % 16 != 0)
    fail(d, fmt::format("box[0] = {} elements ({} bytes) is not a multiple of 16 bytes", d.box[0], inner));
  if (d.swizzle_bytes != 0 && inner > static_cast<std::uint64_t>(d.swizzle_bytes))
    fail(d,
         fmt::format("box[0] = {} elements ({} bytes) exceed the {}-byte swizzle span", d.box[0], inner, d.swizzle_bytes));
  e.swizzle = d.swizzle_bytes == 0 ? 0 : d.swizzle_bytes == 32 ? 1 : d.swizzle_bytes == 64 ? 2 : 3;
  e.l2_promotion = 2;  // 128 B: the tiles are read whole
  return e;
}

void encode_tensor_map(const TensorMapEncoding& e, const std::string& name, void* out) {
  const DriverApi& api = driver();
  if (!api.cuTensorMapEncodeTiled)
    throw LaunchError(
        fmt::format("{}: the driver (version {}) has no cuTensorMapEncodeTiled (CUDA 12 or newer)", name, api.version));
  const CUresult r = api.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap*>(out), static_cast<CUtensorMapDataType>(e.data_type), e.rank,
      reinterpret_cast<void*>(static_cast<std::uintptr_t>(e.global_address)), e.global_dim.data(), e.global_strides.data(),
      e.box_dim.data(), e.element_strides.data(), static_cast<CUtensorMapInterleave>(e.interleave),
      static_cast<CUtensorMapSwizzle>(e.swizzle), static_cast<CUtensorMapL2promotion>(e.l2_promotion),
      static_cast<CUtensorMapFloatOOBfill>(e.oob_fill));
  if (r != CUDA_SUCCESS)
    throw LaunchError(fmt::format("{}: cuTensorMapEncodeTiled failed: {} ({})", name, error_name(r), error_string(r)));
}

}  // namespace attn::cu

// 16-bit float storage types as raw words, converted through the compiler's
// _Float16 (IEEE binary16) and by truncation-with-rounding for bfloat16.
#pragma once

#include <bit>
#include <cstdint>

namespace attn {

inline std::uint16_t f32_to_f16(float x) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)); }
inline float f16_to_f32(std::uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }

// Round to nearest even, NaN kept quiet.
inline std::uint16_t f32_to_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}
inline float bf16_to_f32(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

}  // namespace attn

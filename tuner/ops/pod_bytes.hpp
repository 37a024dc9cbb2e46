// The bytes of a trivially copyable value: how an operation's params struct
// (kernels/common/*_params.h) reaches the kernels, by value.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace attn {

template <class T>
std::vector<std::byte> pod_bytes(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "only a trivially copyable value has a byte image");
  std::vector<std::byte> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

}  // namespace attn

#include "tuner/ops/custom_buffers.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "tuner/core/half.hpp"
#include "tuner/core/rng.hpp"

namespace attn {
namespace {

template <class T>
void store(std::vector<std::byte>& buf, std::size_t index, T value) {
  std::memcpy(buf.data() + index * sizeof(T), &value, sizeof(T));
}

template <class T>
T load(const std::vector<std::byte>& buf, std::size_t index) {
  T value;
  std::memcpy(&value, buf.data() + index * sizeof(T), sizeof(T));
  return value;
}

void store_value(std::vector<std::byte>& buf, BufferType type, std::size_t index, double x) {
  switch (type) {
    case BufferType::f32: store(buf, index, static_cast<float>(x)); break;
    case BufferType::f16: store(buf, index, f32_to_f16(static_cast<float>(x))); break;
    case BufferType::bf16: store(buf, index, f32_to_bf16(static_cast<float>(x))); break;
    case BufferType::i32: store(buf, index, static_cast<std::int32_t>(x)); break;
  }
}

}  // namespace

bool parse_buffer_type(const std::string& name, BufferType& out) {
  for (BufferType t : {BufferType::f32, BufferType::f16, BufferType::bf16, BufferType::i32})
    if (name == buffer_type_name(t)) return out = t, true;
  return false;
}

bool parse_buffer_init(const std::string& name, BufferInit& out, double& constant) {
  if (name == "random") out = BufferInit::random;
  else if (name == "zeros") out = BufferInit::zeros;
  else if (name == "iota") out = BufferInit::iota;
  else if (name == "-inf" || name == "inf" || name == "+inf" || name == "nan") {
    out = BufferInit::constant;
    constant = name == "nan"    ? std::numeric_limits<double>::quiet_NaN()
               : name == "-inf" ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity();
  } else {
    // A number written as text: "0.5", "-1e30".
    char* end = nullptr;
    const double v = std::strtod(name.c_str(), &end);
    if (name.empty() || end != name.c_str() + name.size() || !std::isfinite(v)) return false;
    out = BufferInit::constant;
    constant = v;
  }
  return true;
}

bool parse_buffer_role(const std::string& name, BufferRole& out) {
  if (name == "input") out = BufferRole::input;
  else if (name == "output") out = BufferRole::output;
  else if (name == "inout") out = BufferRole::inout;
  else return false;
  return true;
}

const char* buffer_type_name(BufferType type) {
  switch (type) {
    case BufferType::f32: return "f32";
    case BufferType::f16: return "f16";
    case BufferType::bf16: return "bf16";
    case BufferType::i32: return "i32";
  }
  return "?";
}

std::size_t element_bytes(BufferType type) { return type == BufferType::f16 || type == BufferType::bf16 ? 2 : 4; }

std::vector<std::byte> initial_values(BufferType type, BufferInit init, std::size_t n, std::uint64_t seed, double constant) {
  std::vector<std::byte> buf(n * element_bytes(type));
  if (init == BufferInit::zeros) return buf;  // 0 in every type
  UniformStream rng(seed);
  for (std::size_t e = 0; e < n; ++e) {
    double x = init == BufferInit::constant ? constant : static_cast<double>(e);
    if (init == BufferInit::random) x = type == BufferType::i32 ? std::floor(rng.next(0, 100)) : rng.next(-1, 1);
    store_value(buf, type, e, x);
  }
  return buf;
}

std::vector<std::byte> poison_element(BufferType type) {
  std::vector<std::byte> word(element_bytes(type));
  switch (type) {
    case BufferType::f32: store(word, 0, 0x7fc00000u); break;
    case BufferType::f16: store(word, 0, std::uint16_t{0x7e00}); break;
    case BufferType::bf16: store(word, 0, std::uint16_t{0x7fc0}); break;
    case BufferType::i32: store(word, 0, std::numeric_limits<std::int32_t>::min()); break;
  }
  return word;
}

double element_value(const std::vector<std::byte>& buffer, BufferType type, std::size_t index) {
  switch (type) {
    case BufferType::f32: return load<float>(buffer, index);
    case BufferType::f16: return f16_to_f32(load<std::uint16_t>(buffer, index));
    case BufferType::bf16: return bf16_to_f32(load<std::uint16_t>(buffer, index));
    case BufferType::i32: return load<std::int32_t>(buffer, index);
  }
  return 0;
}

bool element_is_bad(const std::vector<std::byte>& buffer, BufferType type, std::size_t index) {
  if (type == BufferType::i32) return load<std::int32_t>(buffer, index) == std::numeric_limits<std::int32_t>::min();
  return !std::isfinite(element_value(buffer, type, index));
}

}  // namespace attn

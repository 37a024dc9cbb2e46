#include "tuner/check/bitwise_compare.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/half.hpp"

namespace attn {
namespace {

struct FloatFormat {
  std::uint32_t sign;      // the sign bit
  std::uint32_t infinity;  // magnitude bits of +inf: anything above is a NaN
};

FloatFormat format_of(ElementType type) {
  switch (type) {
    case ElementType::F32: return {0x80000000u, 0x7f800000u};
    case ElementType::F16: return {0x8000u, 0x7c00u};
    case ElementType::BF16: return {0x8000u, 0x7f80u};
  }
  return {0x80000000u, 0x7f800000u};
}

// Sign-magnitude bits onto a line of integers in value order (-0 and +0 both 0).
std::int64_t ordered(std::uint32_t bits, const FloatFormat& f) {
  const std::int64_t magnitude = bits & (f.sign - 1);
  return (bits & f.sign) ? -magnitude : magnitude;
}

bool is_nan(std::uint32_t bits, const FloatFormat& f) { return (bits & (f.sign - 1)) > f.infinity; }

std::string hex_bits(std::uint32_t bits, ElementType type) {
  return type == ElementType::F32 ? fmt::format("0x{:08x}", bits) : fmt::format("0x{:04x}", bits);
}

}  // namespace

const char* element_type_name(ElementType type) {
  switch (type) {
    case ElementType::F32: return "f32";
    case ElementType::F16: return "f16";
    case ElementType::BF16: return "bf16";
  }
  return "?";
}

std::size_t element_bytes(ElementType type) { return type == ElementType::F32 ? 4 : 2; }

std::uint32_t element_bits(std::span<const std::byte> data, std::size_t index, ElementType type) {
  if (type == ElementType::F32) {
    std::uint32_t u;
    std::memcpy(&u, data.data() + index * 4, 4);
    return u;
  }
  std::uint16_t w;
  std::memcpy(&w, data.data() + index * 2, 2);
  return w;
}

double element_value(std::uint32_t bits, ElementType type) {
  switch (type) {
    case ElementType::F32: return std::bit_cast<float>(bits);
    case ElementType::F16: return f16_to_f32(static_cast<std::uint16_t>(bits));
    case ElementType::BF16: return bf16_to_f32(static_cast<std::uint16_t>(bits));
  }
  return 0;
}

std::optional<std::uint64_t> ulp_distance(std::uint32_t a_bits, std::uint32_t b_bits, ElementType type) {
  const FloatFormat f = format_of(type);
  if (is_nan(a_bits, f) || is_nan(b_bits, f)) return std::nullopt;
  const std::int64_t a = ordered(a_bits, f), b = ordered(b_bits, f);
  return static_cast<std::uint64_t>(a > b ? a - b : b - a);
}

std::string OutputLayout::element_name(std::size_t index) const {
  return OutputDeclaration{buffer, type, dims, {}}.element_name(index);
}

nlohmann::json OutputLayout::coordinates(std::size_t index) const {
  nlohmann::json c = nlohmann::json::object();
  if (dims.empty()) {
    c["index"] = index;
    return c;
  }
  std::size_t stride = 1;
  for (const auto& [_, extent] : dims) stride *= extent;
  for (const auto& [name, extent] : dims) {
    stride /= extent;
    c[name] = index / stride % extent;
  }
  return c;
}

std::optional<BitwiseDiff> compare_bitwise(std::span<const std::byte> reference, std::span<const std::byte> compared,
                                           ElementType type) {
  if (reference.size() != compared.size())
    throw Error(fmt::format("compare_bitwise: {} bytes against {} bytes", reference.size(), compared.size()));
  if (std::memcmp(reference.data(), compared.data(), reference.size()) == 0) return std::nullopt;
  BitwiseDiff diff;
  const std::size_t n = reference.size() / element_bytes(type);
  for (std::size_t e = 0; e < n; ++e) {
    const std::uint32_t r = element_bits(reference, e, type), c = element_bits(compared, e, type);
    if (r == c) continue;
    const auto ulps = ulp_distance(r, c, type);
    if (diff.differing++ == 0) {
      diff.first = e;
      diff.reference_bits = r;
      diff.compared_bits = c;
      diff.first_ulps = ulps;
    }
    if (ulps && (!diff.max_ulps || *ulps > *diff.max_ulps)) diff.max_ulps = ulps;
  }
  return diff;
}

nlohmann::json mismatch_json(const BitwiseDiff& diff, const ComparedSides& sides) {
  static const OutputLayout flat;
  const OutputLayout& cl = sides.compared_layout ? *sides.compared_layout : flat;
  const OutputLayout& rl = sides.reference_layout ? *sides.reference_layout : cl;
  const std::size_t ci = sides.compared_offset + diff.first, ri = sides.reference_offset + diff.first;
  const double rv = element_value(diff.reference_bits, cl.type), cv = element_value(diff.compared_bits, cl.type);
  nlohmann::json j = {{"element", cl.element_name(ci)},
                      {"index", ci},
                      {"coordinates", cl.coordinates(ci)},
                      {"reference", sides.reference},
                      {"compared", sides.compared},
                      {"reference_value", rv},
                      {"compared_value", cv},
                      {"reference_bits", hex_bits(diff.reference_bits, cl.type)},
                      {"compared_bits", hex_bits(diff.compared_bits, cl.type)},
                      {"ulps", diff.first_ulps ? nlohmann::json(*diff.first_ulps) : nlohmann::json(nullptr)},
                      {"element_type", element_type_name(cl.type)},
                      {"differing_elements", diff.differing},
                      {"max_ulps", diff.max_ulps ? nlohmann::json(*diff.max_ulps) : nlohmann::json(nullptr)}};
  if (const std::string rname = rl.element_name(ri); rname != j["element"].get<std::string>())
    j["reference_element"] = rname;
  return j;
}

}  // namespace attn

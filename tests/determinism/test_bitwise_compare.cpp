// The helpers every determinism report rests on: ulp distances in f32, f16 and
// bf16, and the first-mismatch record of a bitwise comparison.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tuner/check/bitwise_compare.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/half.hpp"
#include "tuner/record/determinism_summary.hpp"

namespace attn {
namespace {

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
  std::vector<std::byte> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(UlpDistance, F32Neighbours) {
  EXPECT_EQ(ulp_distance(bits(1.0f), bits(1.0f), ElementType::F32), 0u);
  EXPECT_EQ(ulp_distance(bits(1.0f), bits(std::nextafter(1.0f, 2.0f)), ElementType::F32), 1u);
  EXPECT_EQ(ulp_distance(bits(std::nextafter(1.0f, 2.0f)), bits(1.0f), ElementType::F32), 1u) << "symmetric";
  EXPECT_EQ(ulp_distance(bits(1.0f), bits(1.0f + 5 * std::numeric_limits<float>::epsilon()), ElementType::F32), 5u);
  // Below 1 the spacing halves: 1 - eps/2 is one ulp below 1.
  EXPECT_EQ(ulp_distance(bits(1.0f), bits(1.0f - std::numeric_limits<float>::epsilon() / 2), ElementType::F32), 1u);
}

TEST(UlpDistance, F32AcrossZeroAndInfinity) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(bits(0.0f), bits(-0.0f), ElementType::F32), 0u) << "+0 and -0: different bits, no distance";
  EXPECT_EQ(ulp_distance(bits(tiny), bits(-tiny), ElementType::F32), 2u);
  EXPECT_EQ(ulp_distance(bits(std::numeric_limits<float>::max()), bits(INFINITY), ElementType::F32), 1u);
  EXPECT_EQ(ulp_distance(bits(-1.0f), bits(1.0f), ElementType::F32), 2u * 0x3f800000u);
}

TEST(UlpDistance, NanHasNoDistance) {
  EXPECT_FALSE(ulp_distance(bits(NAN), bits(1.0f), ElementType::F32));
  EXPECT_FALSE(ulp_distance(bits(1.0f), 0x7fc00001u, ElementType::F32));
  EXPECT_FALSE(ulp_distance(0x7e00u, 0x3c00u, ElementType::F16));
  EXPECT_FALSE(ulp_distance(0x3f80u, 0xffc0u, ElementType::BF16));
  EXPECT_EQ(ulp_distance(0x7c00u, 0x7bffu, ElementType::F16), 1u) << "f16 inf is not a NaN";
}

TEST(UlpDistance, HalfAndBfloat16CountTheirOwnUlps) {
  const std::uint16_t one = f32_to_f16(1.0f);
  EXPECT_EQ(one, 0x3c00u);
  EXPECT_EQ(ulp_distance(one, one + 3u, ElementType::F16), 3u);
  EXPECT_EQ(ulp_distance(0x0001u, 0x8001u, ElementType::F16), 2u);
  EXPECT_EQ(ulp_distance(f32_to_bf16(1.0f), f32_to_bf16(1.0f) + 1u, ElementType::BF16), 1u);
  EXPECT_EQ(ulp_distance(f32_to_bf16(-2.0f), f32_to_bf16(2.0f), ElementType::BF16), 2u * 0x4000u);
  EXPECT_DOUBLE_EQ(element_value(0x3c01u, ElementType::F16), 1.0 + 1.0 / 1024);
  EXPECT_DOUBLE_EQ(element_value(0x3f81u, ElementType::BF16), 1.0 + 1.0 / 128);
}

TEST(OutputLayout, NamesCoordinatesOutermostFirst) {
  OutputLayout o{"o", ElementType::F32, {{"b", 3}, {"h", 4}, {"i", 2}, {"d", 8}}};
  // index = ((b*4 + h)*2 + i)*8 + d
  const std::size_t index = ((2 * 4 + 1) * 2 + 1) * 8 + 5;
  EXPECT_EQ(o.element_name(index), "o[b=2,h=1,i=1,d=5]");
  EXPECT_EQ(o.coordinates(index), (nlohmann::json{{"b", 2}, {"h", 1}, {"i", 1}, {"d", 5}}));
  OutputLayout flat{"out", ElementType::F16, {}};
  EXPECT_EQ(flat.element_name(17), "out[17]");
}

TEST(CompareBitwise, IdenticalBytesAreNoMismatch) {
  const auto a = bytes_of({1.0f, -0.5f, 3.25f});
  EXPECT_FALSE(compare_bitwise(a, a, ElementType::F32));
}

TEST(CompareBitwise, ReportsTheFirstDifferenceAndCountsAll) {
  const float up = std::nextafter(0.5f, 1.0f);
  const auto ref = bytes_of({1.0f, 0.5f, 2.0f, 4.0f, 7.0f});
  const auto got = bytes_of({1.0f, up, 2.0f, 4.0f + 16 * std::numeric_limits<float>::epsilon() * 4, NAN});
  const auto diff = compare_bitwise(ref, got, ElementType::F32);
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->first, 1u);
  EXPECT_EQ(diff->reference_bits, bits(0.5f));
  EXPECT_EQ(diff->compared_bits, bits(up));
  EXPECT_EQ(diff->first_ulps, 1u);
  EXPECT_EQ(diff->differing, 3u);
  EXPECT_EQ(diff->max_ulps, 16u) << "the NaN counts as differing but has no distance";
  EXPECT_THROW(compare_bitwise(ref, bytes_of({1.0f}), ElementType::F32), Error);
}

TEST(CompareBitwise, SignedZerosDifferInBitsOnly) {
  const auto diff = compare_bitwise(bytes_of({0.0f}), bytes_of({-0.0f}), ElementType::F32);
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->first_ulps, 0u);
}

TEST(MismatchJson, NamesElementValuesBitsAndUlps) {
  OutputLayout batched{"o", ElementType::F32, {{"b", 4}, {"h", 2}, {"i", 1}, {"d", 4}}};
  OutputLayout single{"o", ElementType::F32, {{"b", 1}, {"h", 2}, {"i", 1}, {"d", 4}}};
  const float up2 = std::nextafter(std::nextafter(0.25f, 1.0f), 1.0f);
  const auto ref = bytes_of({0, 0, 0, 0, 0, 0.25f, 0, 0});
  const auto got = bytes_of({0, 0, 0, 0, 0, up2, 0, 0});
  const auto diff = compare_bitwise(ref, got, ElementType::F32);
  ASSERT_TRUE(diff);
  // The compared range is sequence 3 of the batch: 8 elements per sequence.
  const nlohmann::json m = mismatch_json(*diff, {"B=1", "B=4", &single, 0, &batched, 3 * 8});
  EXPECT_EQ(m.at("element"), "o[b=3,h=1,i=0,d=1]");
  EXPECT_EQ(m.at("reference_element"), "o[b=0,h=1,i=0,d=1]");
  EXPECT_EQ(m.at("index"), 3 * 8 + 5);
  EXPECT_EQ(m.at("coordinates").at("b"), 3);
  EXPECT_EQ(m.at("reference_value"), 0.25);
  EXPECT_EQ(m.at("compared_value"), double(up2));
  EXPECT_EQ(m.at("reference_bits"), "0x3e800000");
  EXPECT_EQ(m.at("compared_bits"), "0x3e800002");
  EXPECT_EQ(m.at("ulps"), 2);
  EXPECT_EQ(m.at("differing_elements"), 1);
  EXPECT_EQ(m.at("element_type"), "f32");
  EXPECT_EQ(mismatch_summary(m), "o[b=3,h=1,i=0,d=1]: 0.25 (B=1) vs 0.25000006 (B=4), 2 ulps; 1 element differs");
}

TEST(MismatchJson, HalfBitsAreFourHexDigitsAndNanHasNoUlps) {
  OutputLayout o{"o", ElementType::F16, {}};
  const std::vector<std::byte> ref{std::byte{0x00}, std::byte{0x3c}}, got{std::byte{0x00}, std::byte{0x7e}};
  const auto diff = compare_bitwise(ref, got, ElementType::F16);
  ASSERT_TRUE(diff);
  const nlohmann::json m = mismatch_json(*diff, {"run 0", "run 1", &o, 0, &o, 0});
  EXPECT_EQ(m.at("reference_bits"), "0x3c00");
  EXPECT_EQ(m.at("compared_bits"), "0x7e00");
  EXPECT_TRUE(m.at("ulps").is_null());
  EXPECT_NE(mismatch_summary(m).find("NaN involved"), std::string::npos) << mismatch_summary(m);
}

}  // namespace
}  // namespace attn

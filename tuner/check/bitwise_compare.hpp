// Bitwise comparison of two outputs: determinism means identical bytes, so
// any differing bit is a failure. What is reported about a difference is
// meant for a person: the first element that differs, both values, their bit
// patterns and how many representable values lie between them (ulps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/ops/output_declaration.hpp"

namespace attn {

const char* element_type_name(ElementType type);
std::size_t element_bytes(ElementType type);

// The element at INDEX of a buffer of TYPE: its raw bits (zero-extended) and its value.
std::uint32_t element_bits(std::span<const std::byte> data, std::size_t index, ElementType type);
double element_value(std::uint32_t bits, ElementType type);

// Distance in ulps of TYPE: the count of representable values one steps through
// from A to B (so 1 for neighbours, across zero too; +0 and -0 are 0 apart).
// nullopt when either is NaN: there is no distance to a NaN.
std::optional<std::uint64_t> ulp_distance(std::uint32_t a_bits, std::uint32_t b_bits, ElementType type);

// How a flat element index of an output maps to named coordinates, outermost first:
// attention's o is [B][Hq][Nq][D] -> o[b=..,h=..,i=..,d=..].
struct OutputLayout {
  std::string buffer = "out";
  ElementType type = ElementType::F32;
  std::vector<std::pair<std::string, std::size_t>> dims;  // empty: a flat index only
  std::vector<std::size_t> sequence_offsets = {};         // see OutputDeclaration; empty: no batch

  std::string element_name(std::size_t index) const;    // "o[b=0,h=1,i=0,d=17]"
  nlohmann::json coordinates(std::size_t index) const;  // {"b":0,"h":1,"i":0,"d":17}
};

// The difference between two equally long element ranges; indices are into those ranges.
struct BitwiseDiff {
  std::size_t first = 0;  // first element whose bits differ
  std::uint32_t reference_bits = 0;
  std::uint32_t compared_bits = 0;
  std::optional<std::uint64_t> first_ulps;
  std::size_t differing = 0;              // elements whose bits differ
  std::optional<std::uint64_t> max_ulps;  // over the differing elements that are not NaN
};

// nullopt when REFERENCE and COMPARED hold the same bytes. Their sizes must be equal.
std::optional<BitwiseDiff> compare_bitwise(std::span<const std::byte> reference, std::span<const std::byte> compared,
                                           ElementType type);

// Names the two sides of a comparison and where its ranges sit in their buffers.
struct ComparedSides {
  std::string reference;  // "run 0", "B=1", "all positions at once"
  std::string compared;   // "run 3", "B=33", "decode step 2"
  const OutputLayout* reference_layout = nullptr;
  std::size_t reference_offset = 0;  // element index of the range's start in its buffer
  const OutputLayout* compared_layout = nullptr;
  std::size_t compared_offset = 0;
};

// The JSON recorded for a mismatch: element (named coordinates of the compared
// side), both values and bit patterns, the ulp distance, and how many differ.
nlohmann::json mismatch_json(const BitwiseDiff& diff, const ComparedSides& sides);

}  // namespace attn

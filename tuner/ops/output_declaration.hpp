// What an operation declares about each output buffer, so that the checks
// (tuner/check/) compare and name outputs without knowing the operation: the
// element type, the named coordinates of a flat index, and where each
// sequence of the batch lies.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attn {

enum class ElementType { F32, F16, BF16 };

struct OutputDeclaration {
  std::string buffer;
  ElementType type = ElementType::F32;
  // Coordinates of a flat element index, outermost first: {b, h, i, d} for
  // attention's [B][Hq][Nq][D] o, {t, h, d} for packed tokens. Empty: a flat index.
  std::vector<std::pair<std::string, std::size_t>> dims;
  // Sequence b of the batch holds elements [sequence_offsets[b], sequence_offsets[b + 1]):
  // B + 1 entries. Empty when the output has no batch dimension.
  std::vector<std::size_t> sequence_offsets;

  std::string element_name(std::size_t index) const;  // "o[b=0,h=1,i=0,d=17]", "out[42]"
};

// An output of N elements of TYPE whose batch of B sequences is the outermost dimension.
std::vector<std::size_t> even_sequence_offsets(std::size_t elements, int batch);

}  // namespace attn

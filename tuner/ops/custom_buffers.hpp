// Buffers a custom operation declares in its spec: element types, how inputs
// are drawn, the poison outputs carry, and reading elements back as doubles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class BufferType { f32, f16, bf16, i32 };
enum class BufferInit { random, zeros, iota, constant };
// Who reads and writes a buffer: an input the kernel only reads, an output it writes (compared with the
// reference), an input it also writes (state: restored before runs, not compared).
enum class BufferRole { input, output, inout };

// "f32" -> BufferType::f32; false when NAME is none of f32, f16, bf16, i32.
bool parse_buffer_type(const std::string& name, BufferType& out);
// "random", "zeros", "iota", or a constant: a number or "-inf" / "inf" / "nan" (CONSTANT gets its value).
bool parse_buffer_init(const std::string& name, BufferInit& out, double& constant);
bool parse_buffer_role(const std::string& name, BufferRole& out);
const char* buffer_type_name(BufferType type);
std::size_t element_bytes(BufferType type);

// N elements drawn by INIT from SEED (random: floats in [-1, 1), integers in [0, 100); constant: CONSTANT).
std::vector<std::byte> initial_values(BufferType type, BufferInit init, std::size_t n, std::uint64_t seed,
                                      double constant = 0);

// One element that marks "not written": NaN for floats, INT32_MIN for i32.
std::vector<std::byte> poison_element(BufferType type);

double element_value(const std::vector<std::byte>& buffer, BufferType type, std::size_t index);

// Whether element INDEX is the poison or not finite (an unwritten or overflowed value).
bool element_is_bad(const std::vector<std::byte>& buffer, BufferType type, std::size_t index);

}  // namespace attn

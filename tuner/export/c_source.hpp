// Pieces of generated C and C++ source: names, string literals, aligned tables.
#pragma once

#include <string>
#include <vector>

namespace attn {

// S with every character that cannot be in a C identifier replaced by '_'
// (and a leading '_' when it starts with a digit).
std::string c_identifier(const std::string& s);

// S as a C string literal, quotes included; octal escapes for anything not printable ASCII.
std::string c_string_literal(const std::string& s);

// Joins each row's cells with SEPARATOR, padding every column to its widest
// cell, so that table rows in generated code line up. Cells are left-aligned.
std::vector<std::string> aligned_columns(const std::vector<std::vector<std::string>>& rows, const std::string& separator);

}  // namespace attn

#include "tuner/export/c_source.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace attn {

std::string c_identifier(const std::string& s) {
  std::string id;
  for (char c : s) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    id += word ? c : '_';
  }
  if (id.empty() || (id[0] >= '0' && id[0] <= '9')) id.insert(id.begin(), '_');
  return id;
}

std::string c_string_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
    else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\{:03o}", c);  // octal stops after 3 digits, hex would not
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::vector<std::string> aligned_columns(const std::vector<std::vector<std::string>>& rows, const std::string& separator) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::vector<std::string> lines;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += separator + std::string(width[i] - row[i].size(), ' ');
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace attn

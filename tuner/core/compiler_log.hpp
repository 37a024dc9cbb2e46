// The line of a compiler's log that says what went wrong, for one-line reasons.
#pragma once

#include <string>
#include <string_view>

namespace attn {

// The first line mentioning "error" (case-insensitive), trimmed; empty when none.
inline std::string first_error_line(std::string_view log) {
  std::size_t start = 0;
  while (start < log.size()) {
    const std::size_t end = std::min(log.find('\n', start), log.size());
    std::string line(log.substr(start, end - start));
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("error") != std::string::npos) {
      const auto first = line.find_first_not_of(" \t");
      return first == std::string::npos ? std::string{} : line.substr(first);
    }
    start = end + 1;
  }
  return {};
}

}  // namespace attn

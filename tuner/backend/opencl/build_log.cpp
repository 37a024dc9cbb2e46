#include "tuner/backend/opencl/build_log.hpp"

#include <regex>

namespace attn {

std::string attribute_build_log(const std::string& log, const std::filesystem::path& source) {
  // A stand-in name followed by ":LINE" (a diagnostic's location).
  static const std::regex stand_in(R"((?:[^\s:'"]*/)?(?:tempfile_[A-Za-z0-9_]+\.cl|<kernel>|<source>|input\.cl)(?=:\d))");
  std::string replacement;  // regex_replace reads '$' as a back-reference
  for (char c : source.string()) replacement += c == '$' ? std::string("$$") : std::string(1, c);
  return std::regex_replace(log, stand_in, replacement);
}

}  // namespace attn

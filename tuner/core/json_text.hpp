// JSON read from files and pipes (specs, leaderboards, journals, worker replies), with the limits a parser
// needs against bad input: nesting deeper than kMaxJsonDepth (every recursive walk after the parse would
// overflow the stack) and numbers past a double are errors that name the input and the key they are under.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"

namespace attn {

inline constexpr int kMaxJsonDepth = 256;

// Thrown for text that is not JSON or breaks a limit: "spec.json: line 3, column 14: ...".
class JsonTextError : public UsageError {
 public:
  using UsageError::UsageError;
};

namespace detail {
// "kernels.main.params" from the keys of the containers the parser is in.
inline std::string json_key_path(const std::vector<std::string>& keys, const std::string& current) {
  std::string path;
  for (const auto& k : keys)
    if (!k.empty()) path += (path.empty() ? "" : ".") + k;
  if (!current.empty()) path += (path.empty() ? "" : ".") + current;
  return path;
}
}  // namespace detail

// Parses TEXT; WHAT (a file name, "the worker's reply") starts every error message.
template <class Json = nlohmann::json>
Json parse_json_text(std::string_view text, const std::string& what) {
  std::vector<std::string> keys;  // the key of each open container
  std::string key;                // the key being read in the innermost one
  auto where = [&] {
    const std::string path = detail::json_key_path(keys, key);
    return path.empty() ? std::string() : fmt::format(" (under '{}')", path);
  };
  auto callback = [&](int depth, typename Json::parse_event_t event, Json& parsed) {
    using E = typename Json::parse_event_t;
    if (depth > kMaxJsonDepth)
      throw JsonTextError(fmt::format("{}: nested deeper than {} levels{}", what, kMaxJsonDepth, where()));
    if (event == E::key) {
      key = parsed.template get<std::string>();
    } else if (event == E::object_start || event == E::array_start) {
      keys.push_back(key);
      key.clear();
    } else if ((event == E::object_end || event == E::array_end) && !keys.empty()) {
      key = keys.back();
      keys.pop_back();
    }
    return true;
  };
  try {
    return Json::parse(text, callback);
  } catch (const typename Json::parse_error& e) {
    throw JsonTextError(fmt::format("{}: not valid JSON{}: {}", what, where(), e.what()));
  } catch (const typename Json::out_of_range& e) {
    // A number past a double (1e400) or an integer past 64 bits.
    throw JsonTextError(fmt::format("{}: a number out of range{}: {}", what, where(), e.what()));
  }
}

}  // namespace attn

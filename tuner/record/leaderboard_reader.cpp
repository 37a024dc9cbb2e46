#include "tuner/record/leaderboard_reader.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/json_text.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {

Leaderboard read_leaderboard(const std::filesystem::path& path) {
  const std::string file = path.string();
  nlohmann::json j;
  try {
    j = parse_json_text(read_text_file(path), file);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  try {
    Leaderboard lb = j.get<Leaderboard>();
    lb.file = path;
    return lb;
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", file, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed leaderboard: {}", file, e.what()));
  }
}

std::vector<Leaderboard> read_leaderboards(const std::vector<std::filesystem::path>& files) {
  std::vector<Leaderboard> all;
  for (const auto& f : files) all.push_back(read_leaderboard(f));
  return all;
}

}  // namespace attn

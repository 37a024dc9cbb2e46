#include "tuner/record/leaderboard_reader.hpp"

#include <fmt/format.h>

#include "tuner/core/compressed_file.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/json_text.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/record/imported_results.hpp"

namespace attn {

Leaderboard read_leaderboard(const std::filesystem::path& path) {
  const std::string file = path.string();
  nlohmann::json j;
  std::string text;
  try {
    text = read_maybe_gzipped_file(path);
    j = parse_json_text(text, file);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  // Other tuners' results: their parameters in the file's order (an ordered parse), as one ranked group.
  const ResultsFormat format = results_format(j);
  if (format == ResultsFormat::kernel_tuner_cache || format == ResultsFormat::t4_results) {
    const auto ordered = parse_json_text<nlohmann::ordered_json>(text, file);
    return format == ResultsFormat::kernel_tuner_cache ? leaderboard_from_kernel_tuner_cache(ordered, file)
                                                       : leaderboard_from_t4_results(ordered, file);
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

// Leaderboard files read back into the typed model (tuner/record/leaderboard_model.hpp)
// for the commands that consume them: export, gate and report.
#pragma once

#include <filesystem>
#include <vector>

#include "tuner/record/leaderboard_model.hpp"

namespace attn {

// Throws UsageError naming the file (and the field) when the file is not a
// readable leaderboard of a schema this attn-tune knows.
Leaderboard read_leaderboard(const std::filesystem::path& file);
std::vector<Leaderboard> read_leaderboards(const std::vector<std::filesystem::path>& files);

}  // namespace attn

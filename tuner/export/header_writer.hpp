// `attn-tune export`'s header: the tuning tables as C++17 that g++, clang and
// NVRTC compile without any standard header (see the comment it starts with).
#pragma once

#include <string>
#include <vector>

#include "tuner/export/tuning_table.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

struct HeaderOptions {
  std::string command;  // the command line that wrote it, to regenerate it
  std::string guard;    // include guard macro
};

// Throws UsageError when a tuned value does not fit an int.
std::string write_tuned_header(const TuningTables& tables, const std::vector<Leaderboard>& leaderboards,
                               const HeaderOptions& options);

}  // namespace attn

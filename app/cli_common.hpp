// Options several subcommands share, and how errors become exit codes.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "tuner/record/settings.hpp"

namespace attn::cli {

// Exit codes: 0 success, 1 a failure the command reports (a regression, no
// configuration verified), 2 bad usage or input, 130 interrupted.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 130;

// --seed, the timing rules, --watchdog and --no-isolate, and the compile cache's options.
void add_run_options(CLI::App* cmd, RunSettings& settings);

// --cache-dir, --no-cache, --cache-max-mb.
void add_cache_options(CLI::App* cmd, CompileCacheSettings& settings);

// --measure and the stages' settings (sweeps and searches; record/measure_settings.hpp), and --remeasure.
void add_measure_options(CLI::App* cmd, MeasureSettings& settings, bool& remeasure);

// The process's command line, for the record in result files.
std::string command_line(int argc, char** argv);

}  // namespace attn::cli

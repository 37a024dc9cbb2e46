// Each subcommand registers itself on the app; main.cpp lists them.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace attn::cli {

// What the subcommands share: the command line (recorded in result files) and
// the exit code a callback sets.
struct Context {
  std::string command_line;
  int exit_code = 0;
};

void add_devices_command(CLI::App& app, Context& ctx);
void add_sweep_command(CLI::App& app, Context& ctx);
void add_bench_command(CLI::App& app, Context& ctx);
void add_compile_command(CLI::App& app, Context& ctx);
void add_determinism_command(CLI::App& app, Context& ctx);
void add_export_command(CLI::App& app, Context& ctx);
void add_gate_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);
void add_replay_command(CLI::App& app, Context& ctx);
void add_space_command(CLI::App& app, Context& ctx);
void add_worker_command(CLI::App& app, Context& ctx);
void add_merge_command(CLI::App& app, Context& ctx);

}  // namespace attn::cli

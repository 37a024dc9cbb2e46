// attn-tune: JIT-compile, verify, time and rank attention kernel configurations.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/version.hpp"

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_subcommand(CLI::App& app, const std::string& word) {
  return !app.get_subcommands([&](CLI::App* s) { return s->check_name(word); }).empty();
}

// "attn-tune swep": the visible subcommand within two edits of WORD, or empty.
std::string closest_subcommand(CLI::App& app, const std::string& word) {
  std::string best;
  std::size_t best_distance = 3;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); })) {
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_distance) best = sub->get_name(), best_distance = d;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attn;
  // Warnings and logs go to stderr: stdout carries results (tables, --json) that scripts read.
  spdlog::set_default_logger(spdlog::stderr_color_mt("attn-tune"));
  spdlog::set_pattern("%^%l%$: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{
      "attn-tune: an autotuner and benchmark for attention GPU kernels.\n"
      "Compiles every configuration of a sweep spec (configs/*.json) with -D options through OpenCL or NVRTC,\n"
      "checks each against a CPU reference, times the correct ones and writes a ranked JSON leaderboard.\n\n"
      "  attn-tune devices                                  what can run kernels here\n"
      "  attn-tune sweep configs/flash_attn_f32_f16.json    tune on the best device\n"
      "  attn-tune bench SPEC --set BLOCK_M=64,BLOCK_N=32   one configuration, full statistics\n",
      "attn-tune"};
  app.set_version_flag("--version", fmt::format("attn-tune {} ({})", kVersion, kGitCommit));
  app.require_subcommand(1);
  app.add_flag_callback(
      "-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log what attn-tune does");

  cli::Context ctx{cli::command_line(argc, argv)};
  cli::add_devices_command(app, ctx);
  cli::add_sweep_command(app, ctx);
  cli::add_bench_command(app, ctx);
  cli::add_compile_command(app, ctx);
  cli::add_determinism_command(app, ctx);
  cli::add_export_command(app, ctx);
  cli::add_gate_command(app, ctx);
  cli::add_report_command(app, ctx);
  cli::add_replay_command(app, ctx);
  cli::add_space_command(app, ctx);
  cli::add_worker_command(app, ctx);
  cli::add_merge_command(app, ctx);

  if (argc == 1) {
    fmt::print(stderr, "{}", app.help());
    return cli::kExitUsage;
  }
  if (const std::string first = argv[1]; !first.starts_with('-') && !is_subcommand(app, first)) {
    const std::string suggestion = closest_subcommand(app, first);
    fmt::print(stderr, "attn-tune: unknown command '{}'{} (`attn-tune --help` lists the commands)\n", first,
               suggestion.empty() ? "" : fmt::format(": did you mean '{}'?", suggestion));
    return cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitUsage;
  } catch (const UsageError& e) {
    fmt::print(stderr, "attn-tune: {}\n", e.what());
    return cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "attn-tune: error: {}\n", e.what());
    return cli::kExitFailure;
  }
  return ctx.exit_code;
}

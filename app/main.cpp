// attn-tune: JIT-compile, verify, time and rank attention kernel configurations.
#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/version.hpp"

int main(int argc, char** argv) {
  using namespace attn;
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
  app.add_flag_callback("-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log what attn-tune does");

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
  cli::add_worker_command(app, ctx);

  if (argc == 1) {
    fmt::print(stderr, "{}", app.help());
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

// attn-tune sweep: tune every configuration of a spec and rank them.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/record/determinism_summary.hpp"
#include "tuner/record/leaderboard_table.hpp"
#include "tuner/search/strategy.hpp"
#include "tuner/sweep/distributed_sweep.hpp"

namespace attn::cli {

void add_sweep_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "sweep",
      "Compile, verify and time every configuration of a spec; write a ranked leaderboard.\n"
      "Each result is journaled as soon as it is measured (<out>.journal.jsonl): after Ctrl-C or a kill,\n"
      "--resume runs only what is missing. Configurations that fail to compile, crash, hang or miss the\n"
      "reference are recorded with their status and reason, and never ranked.\n"
      "Exit 1 when no configuration ran ok (all skipped, failed to compile, incorrect, crashed or timed out),\n"
      "with the count of each status and the first reasons; 130 after Ctrl-C.");
  static DistributedSweepRequest request;
  static SweepOptions& opt = request.sweep;
  static bool json = false, quiet = false;
  static int top = 5;
  static std::vector<std::string> checks, require;
  cmd->add_option("spec", opt.spec_path, "Sweep spec (configs/*.json)")->required();
  cmd->add_option("-d,--device", request.devices,
                  "Device id from `attn-tune devices` (default: the best GPU, else the CPU); several, comma-separated, or\n"
                  "BACKEND:all (cuda:all, opencl:all): one worker per device pulling from one queue, one leaderboard\n"
                  "per device model");
  cmd->add_option("--shard", request.shard,
                  "Run only shard I of N (I/N, from 0): configurations dealt by a hash of their key. Default: from\n"
                  "Slurm job arrays, torchrun or Open MPI variables when set. Files get .shard-I-of-N; see `merge`");
  cmd->add_option("-s,--shape", opt.shape_selection,
                  "Shapes to run: names (prefill-512,decode-4k) and/or field overrides (Nq=2048,causal=1)");
  cmd->add_option("-k,--kernel", opt.kernels, "Only these kernels of the spec (repeatable)");
  cmd->add_option("-o,--out", opt.out, "Leaderboard file (default: runs/<spec>.<device>.json; runs/ is not committed)");
  cmd->add_flag("--resume", opt.resume, "Continue the sweep recorded in the journal next to --out");
  cmd->add_flag("--overwrite", opt.overwrite, "Start over even if an unfinished journal exists");
  cmd->add_flag("--keep-going", opt.keep_going,
                "Run every configuration even when the first ones all fail to compile with the same error");
  cmd->add_flag("--json", json, "Print the leaderboard JSON on stdout instead of the table");
  cmd->add_option("--top", top, "Configurations per shape in the table")->capture_default_str();
  cmd->add_option("--tie-rounds", opt.settings.ties.rounds,
                  "Configurations within noise of the best are measured again this many times in turns and ranked by "
                  "fewest registers, then least shared memory, then configuration order (0: rank by median only)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tie-noise", opt.settings.ties.noise_multiple,
                  "Within noise of the best: a median gap up to this many noise bands, sqrt(noise(a)^2 + noise(b)^2) "
                  "(the rule the stop rule, the table and the gate use; docs/timing.md)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", quiet, "No progress on stderr");
  cmd->add_option("--check", checks,
                  "Checks on every verified configuration: determinism (cross-run, batch invariance, "
                  "decode cache growth; docs/determinism.md)")
      ->delimiter(',')
      ->check(CLI::IsMember({"determinism"}));
  cmd->add_option("--require", require,
                  "Rank only configurations passing these checks: deterministic, batch-invariant, "
                  "cache-growth (implies --check determinism)")
      ->delimiter(',');
  cmd->add_option("--check-batch-sizes", opt.settings.determinism.batch_sizes, "Batch sizes compared with B=1")
      ->delimiter(',')
      ->capture_default_str();
  auto* strategy =
      cmd->add_option(
             "--strategy", opt.search.strategy,
             fmt::format(
                 "exhaustive (every configuration and preset), or a search per (kernel, shape): random, "
                 "annealing, genetic, surrogate, hybrid, portfolio (docs/search.md); with a budget, the default is {}",
                 kDefaultSearchStrategy))
          ->check(CLI::IsMember(strategy_names()));
  cmd->add_option("--budget-evals", opt.search.budget.evaluations,
                  "A search's configurations per (kernel, shape); 0: no limit")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--budget-time", opt.search.budget.seconds, "A search's seconds per (kernel, shape); 0: no limit")
      ->check(CLI::NonNegativeNumber);
  add_run_options(cmd, opt.settings);
  add_measure_options(cmd, opt.settings.measure, opt.remeasure);
  cmd->callback([&ctx, strategy] {
    opt.command_line = ctx.command_line;
    const bool budget = opt.search.budget.evaluations > 0 || opt.search.budget.seconds > 0;
    if (strategy->count() == 0) opt.search.strategy = budget ? kDefaultSearchStrategy : "exhaustive";
    for (const auto& name : require) opt.settings.determinism.require.push_back(determinism_check_name(name));
    opt.settings.determinism.enabled = !checks.empty() || !require.empty();
    Progress progress = Progress::for_stderr(quiet);
    const auto note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    for (const SweepOutcome& outcome : run_distributed_sweep(request, progress, process_environment(), note)) {
      if (json) fmt::print("{}\n", nlohmann::json(outcome.leaderboard).dump(2));
      else fmt::print("{}", leaderboard_table(outcome.leaderboard, top));
      // The table (stdout) before the summary (stderr): piped together, a buffered table would come after it.
      std::fflush(stdout);
      fmt::print(stderr, "compile:     {}\n", outcome.compilations.summary());
      if (outcome.replayed > 0)
        fmt::print(stderr, "measured:    {} results answered from an earlier sweep ({}); --remeasure measures again\n",
                   outcome.replayed, outcome.store_path.string());
      if (outcome.race.screened > 0)
        fmt::print(stderr,
                   "stages:      {} screened, {} retired by the race, {} confirmed in full (--measure thorough "
                   "measures every one in full)\n",
                   outcome.race.screened, outcome.race.retired, outcome.race.confirmed);
      fmt::print(stderr, "leaderboard: {}\njournal:     {}\n", outcome.leaderboard_path.string(),
                 outcome.journal_path.string());
      if (outcome.interrupted) {
        fmt::print(stderr, "interrupted: run the same command with --resume to finish\n");
        ctx.exit_code = kExitInterrupted;
      } else if (!outcome.stopped_early.empty()) {
        fmt::print(stderr,
                   "{}\nstopped early ({}): fix the source and run again with --overwrite, or --resume --keep-going to "
                   "run the rest anyway\n",
                   outcome.stopped_early, outcome.summary.counts_text());
        ctx.exit_code = std::max(ctx.exit_code, kExitFailure);
      } else if (!outcome.summary.any_ok() && outcome.leaderboard.shard.whole()) {  // a shard may hold no ok one
        fmt::print(stderr, "{}", outcome.summary.failure_text());
        ctx.exit_code = std::max(ctx.exit_code, kExitFailure);
      }
    }
  });
}

}  // namespace attn::cli

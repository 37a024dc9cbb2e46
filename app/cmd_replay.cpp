// attn-tune replay: a search strategy against a recorded exhaustive leaderboard, no device.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/search/replay.hpp"

namespace attn::cli {

void add_replay_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "replay",
      "Run a search strategy against a recorded exhaustive leaderboard with no device (Kernel Tuner's\n"
      "simulation mode): a configuration's result is its recorded median time, a failed one fails again.\n"
      "Over --repeat seeds, reports the evaluations needed to come within 1%, 3% and 5% of the recorded\n"
      "best (median and quartiles) and the best found at each budget, per (kernel, shape).\n\n"
      "  attn-tune replay results/h200/flash_attn_decode.json --strategy surrogate --budget-evals 50 --repeat 20");
  static std::string file;
  static ReplayOptions opt;
  static std::vector<std::string> kernels, shapes;
  static bool json = false;
  cmd->add_option("leaderboard", file, "Leaderboard of an exhaustive sweep")->required()->check(CLI::ExistingFile);
  cmd->add_option("--strategy", opt.strategy, fmt::format("Search strategy: {}", fmt::join(strategy_names(), ", ")))
      ->required()
      ->check(CLI::IsMember(strategy_names()));
  cmd->add_option("--budget-evals", opt.budget_evals, "Evaluations per run (default: the whole recorded space)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeat", opt.repeat, "Runs, with seeds --seed, --seed + 1, ...")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", opt.seed, "Seed of the first run")->capture_default_str();
  cmd->add_option("-k,--kernel", kernels, "Only these kernels (repeatable)");
  cmd->add_option("-s,--shape", shapes, "Only these shapes (repeatable)");
  cmd->add_flag("--json", json, "Print the results as JSON");
  cmd->callback([&ctx] {
    (void)ctx;
    const Leaderboard leaderboard = read_leaderboard(file);
    auto wanted = [](const std::vector<std::string>& names, const std::string& name) {
      return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
    };
    std::vector<ReplayResult> results;
    for (const auto& group : leaderboard.groups) {
      if (!wanted(kernels, group.kernel) || !wanted(shapes, group.shape)) continue;
      results.push_back(replay(RecordedGroup::of(group), opt));
    }
    if (results.empty())
      throw UsageError(fmt::format("{}: no (kernel, shape) group matches --kernel {} --shape {}", file,
                                   fmt::join(kernels, ","), fmt::join(shapes, ",")));
    if (json) fmt::print("{}\n", replay_json(results, opt).dump(2));
    else fmt::print("{}", replay_table(results, opt));
  });
}

}  // namespace attn::cli

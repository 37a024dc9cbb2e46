// attn-tune merge: the shards of a sweep put back together into one leaderboard.
#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/record/leaderboard_table.hpp"
#include "tuner/sweep/merge.hpp"

namespace attn::cli {

void add_merge_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "merge",
      "Merge the leaderboards of a sharded sweep (--shard, Slurm arrays, torchrun) into one, ranked as one sweep.\n"
      "Refuses (exit 2) leaderboards of another spec, other kernel sources, other timing settings or seed, or\n"
      "another device model; lists the configurations no shard measured.");
  static MergeOptions opt;
  static std::filesystem::path out;
  static int retime = 0, top = 5;
  static std::string device;
  cmd->add_option("shards", opt.shards, "Leaderboards to merge (results/<spec>.<device>.shard-I-of-N.json ...)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", out, "Merged leaderboard file")->required();
  cmd->add_option("--spec", opt.spec, "The spec the shards were swept from (default: the path they record)");
  cmd->add_option("--retime-top", retime,
                  "Measure the K fastest of each group again one after another on --device, so that winners timed on\n"
                  "different GPUs of one model are compared on one");
  cmd->add_option("-d,--device", device, "Device for --retime-top");
  cmd->add_option("--top", top, "Configurations per shape in the table")->capture_default_str();
  cmd->callback([&ctx] {
    if (retime > 0 && device.empty()) throw UsageError("--retime-top needs --device: the device to measure them on");
    if (retime < 0) throw UsageError("--retime-top must be positive");
    opt.command_line = ctx.command_line;
    MergeOutcome merged = merge_shards(opt);
    write_file_atomically(out, nlohmann::json(merged.leaderboard).dump(2) + "\n");
    if (retime > 0) {
      retime_top(merged.leaderboard, merged.spec, retime, device,
                 [](const std::string& line) { fmt::print(stderr, "retimed {}\n", line); });
      write_file_atomically(out, nlohmann::json(merged.leaderboard).dump(2) + "\n");
    }
    fmt::print("{}", leaderboard_table(merged.leaderboard, top));
    for (const auto& g : merged.leaderboard.groups)
      if (g.retimed.contains("best"))
        fmt::print("{} / {}: retimed on {}, fastest {}\n", g.kernel, g.shape, g.retimed.at("device").get<std::string>(),
                   g.retimed.at("best").get<std::string>());
    if (!merged.missing.empty()) {
      fmt::print(stderr,
                 "{} configuration(s) of the plan measured by no shard (run the missing shards, or --resume them):\n",
                 merged.missing.size());
      for (std::size_t i = 0; i < merged.missing.size() && i < 20; ++i) fmt::print(stderr, "  {}\n", merged.missing[i]);
      if (merged.missing.size() > 20)
        fmt::print(stderr, "  ... and {} more (\"missing\" in {})\n", merged.missing.size() - 20, out.string());
    }
    fmt::print(stderr, "merged {} leaderboard(s) into {}\n", opt.shards.size(), out.string());
  });
}

}  // namespace attn::cli

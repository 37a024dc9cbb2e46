// attn-tune report: leaderboards -> one self-contained HTML page (or markdown).
#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/report/html_report.hpp"
#include "tuner/report/markdown_report.hpp"

namespace attn::cli {

void add_report_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "report",
      "Write a report of leaderboards: one self-contained HTML file (inline CSS and SVG, nothing loaded\n"
      "from the network) or markdown for a terminal. Per (kernel, shape): the ranked table with timing\n"
      "statistics and resources, a heatmap of median time over two parameters (best over the others), the\n"
      "spread of every configuration relative to the best, and what did not rank and why; per device a\n"
      "roofline (GFLOP/s against FLOP/byte) under its ceilings; across leaderboards, each one's best and how\n"
      "it does on the others. Ceilings default to a table of known devices (H200: measured; H100:\n"
      "datasheet) and the report says where they come from.\n\n"
      "  attn-tune report results/flash_attn_f32_f16.nvidia-h200.json --out report.html\n"
      "  attn-tune report results/a.json results/b.json --format md | less\n"
      "  attn-tune report results/x.json --x BLOCK_N --y DV_TILE --peak-gflops 51000 --peak-gbps 4260 --out r.html");
  static std::vector<std::string> files;
  static std::string out, format = "html";
  static ReportOptions opt;
  cmd->add_option("leaderboards", files, "Leaderboard files written by `attn-tune sweep`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", out, "File to write (default: standard output)");
  cmd->add_option("--format", format, "html, or md (markdown)")->check(CLI::IsMember({"html", "md"}))->capture_default_str();
  cmd->add_option("--x", opt.x_param, "Heatmap column parameter (kernels without it use their first two parameters)")
      ->capture_default_str();
  cmd->add_option("--y", opt.y_param, "Heatmap row parameter")->capture_default_str();
  cmd->add_option("--peak-gflops", opt.ceilings.gflops, "Roofline compute ceiling, GFLOP/s (default: the known device's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--peak-gbps", opt.ceilings.gbps, "Roofline memory ceiling, GB/s (default: the known device's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--top", opt.top, "Ranked configurations per table (0: all)")->capture_default_str();
  cmd->callback([&ctx] {
    opt.command = ctx.command_line;
    if (opt.ceilings.gflops > 0 || opt.ceilings.gbps > 0)
      opt.ceilings.source =
          fmt::format("given on the command line ({}{}{})",
                      opt.ceilings.gflops > 0 ? fmt::format("--peak-gflops {:g}", opt.ceilings.gflops) : "",
                      opt.ceilings.gflops > 0 && opt.ceilings.gbps > 0 ? ", " : "",
                      opt.ceilings.gbps > 0 ? fmt::format("--peak-gbps {:g}", opt.ceilings.gbps) : "");
    const auto leaderboards = read_leaderboards(std::vector<std::filesystem::path>(files.begin(), files.end()));
    const std::string text = format == "md" ? markdown_report(leaderboards, opt) : html_report(leaderboards, opt);
    if (out.empty()) fmt::print("{}", text);
    else write_file_atomically(out, text);
  });
}

}  // namespace attn::cli

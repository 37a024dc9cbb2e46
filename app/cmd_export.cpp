// attn-tune export: leaderboards -> a generated C++ header of tuned
// parameters, or one device's and shape's parameters as #defines.
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/export/c_source.hpp"
#include "tuner/export/defines_writer.hpp"
#include "tuner/export/header_writer.hpp"
#include "tuner/export/t4_writer.hpp"
#include "tuner/export/tuning_table.hpp"
#include "tuner/gate/timing_policy_check.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn::cli {
namespace {

struct ExportOptions {
  std::vector<std::string> leaderboards;
  std::string out;
  std::string format = "header";
  std::string device, shape, kernel;
};

// ATTN_TUNED_<FILE STEM>_H
std::string include_guard(const std::string& out) {
  std::string stem = out.empty() ? "" : std::filesystem::path(out).stem().string();
  for (char& c : stem) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return stem.empty() ? "ATTN_TUNED_H" : c_identifier("ATTN_TUNED_" + stem + "_H");
}

void write_output(const std::string& out, const std::string& text) {
  if (out.empty()) fmt::print("{}", text);
  else write_file_atomically(out, text);
}

}  // namespace

void add_export_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "export",
      "Turn leaderboards into a generated, do-not-edit C++ header a library includes.\n"
      "Per kernel of each spec: a struct of its tuned parameters and a constexpr table keyed by device\n"
      "(its name, then its architecture, then its vendor, then a default) and by shape bucket (attention:\n"
      "dtype, head dim D and causal exactly; Nq and Nkv by power-of-two range), with a lookup function.\n"
      "Only ranked (status ok) results count. A row for several results (shapes of one bucket, devices of\n"
      "one architecture) and the default take, of the configurations that ranked in the most of them, the\n"
      "one with the best geometric mean of time / best time. The header is C++17 without standard headers:\n"
      "g++, clang and NVRTC compile it, and it static_asserts every value is one the sweeps tried.\n\n"
      "  attn-tune export results/*.json --out include/attn_tuned.h\n"
      "  attn-tune export results/x.json --format defines --device H200 --shape prefill-1k --out tuned.h\n"
      "      #ifndef BLOCK_M / #define BLOCK_M 64 / #endif ... for a kernel to include before its defaults\n"
      "  attn-tune export results/x.json --format t4 --out t4/\n"
      "      Kernel Tuner's T4 documents: <file>.<kernel>.<shape>.results.json per group, <file>.metadata.json");
  static ExportOptions opt;
  cmd->add_option("leaderboards", opt.leaderboards, "Leaderboard files written by `attn-tune sweep`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", opt.out, "File to write (default: standard output)");
  cmd->add_option("--format", opt.format,
                  "header: the lookup tables; defines: #defines for one --device and --shape; "
                  "t4: Kernel Tuner's T4 results and metadata documents into the --out directory")
      ->check(CLI::IsMember({"header", "defines", "t4"}))
      ->capture_default_str();
  cmd->add_option("-d,--device", opt.device, "--format defines: the device, by name or a unique part of it (\"H200\")");
  cmd->add_option("-s,--shape", opt.shape, "--format defines: the shape, by its name in the leaderboard");
  cmd->add_option("-k,--kernel", opt.kernel, "--format defines: the kernel (or spec/kernel) when several ran the shape");
  cmd->callback([&ctx] {
    const std::vector<std::filesystem::path> files(opt.leaderboards.begin(), opt.leaderboards.end());
    const auto leaderboards = read_leaderboards(files);
    if (opt.format == "t4") {
      if (opt.out.empty())
        throw UsageError("--format t4 needs --out DIRECTORY: it writes one document per kernel and shape");
      for (const auto& lb : leaderboards) {
        const auto dir = std::filesystem::path(opt.out);
        const std::string stem = lb.file.stem().string();
        write_file_atomically(dir / fmt::format("{}.metadata.json", stem), t4_metadata(lb).dump(2) + "\n");
        for (const auto& g : lb.groups)
          write_file_atomically(
              dir / fmt::format("{}.{}.{}.results.json", stem, file_name_part(g.kernel), file_name_part(g.shape)),
              t4_results(lb, g).dump(2) + "\n");
      }
      return;
    }
    std::vector<const Leaderboard*> timed;
    for (const auto& lb : leaderboards) timed.push_back(&lb);
    require_one_timing_policy(timed, "merge");
    if (opt.format == "defines") {
      if (opt.device.empty() || opt.shape.empty()) throw UsageError("--format defines needs --device and --shape");
      write_output(opt.out, write_defines(leaderboards, {opt.device, opt.shape, opt.kernel, ctx.command_line}));
      return;
    }
    if (!opt.device.empty() || !opt.shape.empty() || !opt.kernel.empty())
      throw UsageError("--device, --shape and --kernel go with --format defines; the header holds every device and shape");
    const TuningTables tables = build_tuning_tables(leaderboards);
    for (const auto& note : tables.notes) fmt::print(stderr, "note: {}\n", note);
    if (tables.kernels.empty()) {
      fmt::print(stderr, "attn-tune: nothing to export: no configuration ranked in these leaderboards\n");
      ctx.exit_code = kExitFailure;
      return;
    }
    write_output(opt.out, write_tuned_header(tables, leaderboards, {ctx.command_line, include_guard(opt.out)}));
    if (!opt.out.empty()) {
      std::size_t rows = 0;
      for (const auto& k : tables.kernels) rows += k.rows.size();
      fmt::print(stderr, "wrote {}: {} kernels, {} rows from {} leaderboards\n", opt.out, tables.kernels.size(), rows,
                 leaderboards.size());
    }
  });
}

}  // namespace attn::cli

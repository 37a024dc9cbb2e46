// attn-tune gate: a CI perf gate. Compares a baseline leaderboard's best
// configurations with a candidate leaderboard, or with measurements made now.
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/gate/gate.hpp"
#include "tuner/gate/gate_summary.hpp"
#include "tuner/gate/junit_writer.hpp"
#include "tuner/gate/recorded_spec_measurer.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn::cli {
namespace {

namespace fs = std::filesystem;

struct GateOptions {
  std::string baseline, candidate, device, spec, baseline_spec, markdown, junit;
  double threshold_percent = 5;
  int top = 3;
  int remeasure = 3;
  bool fail_on_uncertain = false;
  bool allow_other_device = false;
  bool quiet = false;
};

void require_same_device(const DeviceInfo& baseline, const DeviceInfo& candidate, bool allowed) {
  if (baseline.name == candidate.name || allowed) return;
  throw UsageError(
      fmt::format("the baseline ran on '{}' but the candidate on '{}': times of different devices do not compare "
                  "(--allow-other-device to compare anyway)",
                  baseline.name, candidate.name));
}

}  // namespace

void add_gate_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "gate",
      "A CI perf gate: compare the baseline's best configurations, per (kernel, shape), with a candidate\n"
      "leaderboard (--candidate) or with measurements made now on a device (--device; the spec, --shape and\n"
      "timing settings recorded in the baseline). Each configuration's verdict (docs/gate.md):\n"
      "  noise      per measurement: interquartile range / (1.349 x median), i.e. the samples' standard\n"
      "             deviation relative to the median for normal samples, robust to outliers\n"
      "  slowdown   candidate median / baseline median - 1;  speedup: baseline / candidate - 1\n"
      "  band       sqrt(noise_baseline^2 + noise_candidate^2)\n"
      "  SLOWER     slowdown > threshold and slowdown > band\n"
      "  FASTER     speedup > threshold and speedup > band\n"
      "  UNCERTAIN  slowdown or speedup > threshold, but <= band: the noise cannot tell\n"
      "  SAME       neither beyond the threshold\n"
      "  BROKEN     ok in the baseline, not ok in the candidate (incorrect, crashed, ...)\n"
      "  NONDETERMINISTIC  a deterministic, batch_invariant or cache_growth check went from true to false\n"
      "  MISSING    the candidate has no result for it\n"
      "With a device, an UNCERTAIN or SLOWER configuration is measured again, up to --remeasure times, until\n"
      "its verdict is another: the last measurement decides. With --baseline-spec (the baseline's code, checked\n"
      "against the sha256 the baseline records), each measurement again is a pair of both codes, taking turns at\n"
      "going first, and all pairs are judged together: the median of their ratios against the median of their\n"
      "bands, and SLOWER only when every pair judged alone is SLOWER too (else UNCERTAIN).\n"
      "SLOWER, BROKEN, NONDETERMINISTIC and MISSING fail the gate (UNCERTAIN too with --fail-on-uncertain).\n"
      "Exit 1 on any failure, 0 otherwise, 2 bad usage.\n\n"
      "  attn-tune gate --baseline results/main.json --candidate results/pr.json --junit gate.xml\n"
      "  attn-tune gate --baseline results/x.nvidia-h200.json --device cuda:0 --markdown gate.md");
  static GateOptions opt;
  cmd->add_option("-b,--baseline", opt.baseline, "Leaderboard of the reference run")->required()->check(CLI::ExistingFile);
  cmd->add_option("-c,--candidate", opt.candidate, "Leaderboard to judge against it")->check(CLI::ExistingFile);
  cmd->add_option("-d,--device", opt.device,
                  "Measure on this device (`attn-tune devices`): the candidate itself when there is no --candidate, "
                  "else only its UNCERTAIN and SLOWER configurations, again");
  cmd->add_option("--spec", opt.spec,
                  "Spec to measure the candidate with (default: the one the candidate, else the baseline, records)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--baseline-spec", opt.baseline_spec,
                  "With --device: the baseline's own spec (e.g. in a checkout of the baseline's commit), whose spec and "
                  "source sha256 must be the ones the baseline records; every measurement again is then a pair of "
                  "both codes, taking turns at going first, and the pairs are judged together")
      ->check(CLI::ExistingFile);
  cmd->add_option("--threshold", opt.threshold_percent, "Smallest slowdown that fails, in percent")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top", opt.top, "Best configurations compared per (kernel, shape); 0: every ranked one")
      ->capture_default_str();
  cmd->add_option("--remeasure", opt.remeasure,
                  "With --device: most re-measurements of an UNCERTAIN or SLOWER configuration")
      ->capture_default_str();
  cmd->add_flag("--fail-on-uncertain", opt.fail_on_uncertain, "An UNCERTAIN left after the re-measurements fails too");
  cmd->add_flag("--allow-other-device", opt.allow_other_device, "Compare results of different devices anyway");
  cmd->add_option("--markdown", opt.markdown,
                  "Also write a markdown summary here (append it to $GITHUB_STEP_SUMMARY for the job's page)");
  cmd->add_option("--junit", opt.junit, "Also write JUnit XML here: one testcase per comparison");
  cmd->add_flag("-q,--quiet", opt.quiet, "No progress on stderr");
  cmd->callback([&ctx] {
    if (opt.candidate.empty() && opt.device.empty())
      throw UsageError("gate needs --candidate LEADERBOARD or --device ID (or both)");
    if (!opt.baseline_spec.empty() && opt.device.empty())
      throw UsageError("--baseline-spec measures the baseline: it needs --device");
    const Leaderboard baseline = read_leaderboard(opt.baseline);
    std::optional<Leaderboard> candidate;
    if (!opt.candidate.empty()) {
      candidate = read_leaderboard(opt.candidate);
      require_same_device(baseline.device, candidate->device, opt.allow_other_device);
    }

    std::vector<std::string> notes;
    std::unique_ptr<RecordedSpecMeasurer> measurer, baseline_measurer;
    GateInput in;
    if (!opt.device.empty()) {
      const Leaderboard& recorded = candidate ? *candidate : baseline;
      const fs::path spec = opt.spec.empty() ? find_recorded_spec(recorded) : fs::path(opt.spec);
      measurer = std::make_unique<RecordedSpecMeasurer>(spec, recorded, opt.device);
      require_same_device(baseline.device, measurer->device(), opt.allow_other_device);
      for (const auto& d : code_differences(measurer->spec(), recorded))
        notes.push_back(fmt::format("measured now: {} differs from what {} records", d, recorded.file.string()));
      in.measure = [&](const Job& job) { return measurer->measure(job); };
    }
    if (!opt.baseline_spec.empty()) {
      baseline_measurer = std::make_unique<RecordedSpecMeasurer>(opt.baseline_spec, baseline, opt.device);
      if (const auto diffs = code_differences(baseline_measurer->spec(), baseline); !diffs.empty())
        throw UsageError(fmt::format("--baseline-spec is not the code {} was swept from: {}", baseline.file.string(),
                                     fmt::join(diffs, "; ")));
      in.measure_baseline = [&](const Job& job) { return baseline_measurer->measure(job); };
    }
    in.baseline = &baseline;
    in.candidate = candidate ? &*candidate : nullptr;
    in.rules.threshold = opt.threshold_percent / 100;
    in.rules.remeasure_limit = opt.remeasure;
    in.rules.uncertain_fails = opt.fail_on_uncertain;
    in.top = opt.top;
    if (!opt.quiet) in.log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };

    GateReport report = run_gate(in);
    if (measurer && !candidate)
      report.candidate_label = fmt::format("measured now on {} ({})", measurer->device().name, measurer->device().id);
    else if (measurer)
      report.candidate_label += fmt::format("; UNCERTAIN and SLOWER measured again on {}", measurer->device().id);
    if (baseline_measurer) report.baseline_label += fmt::format("; measured again with {}", opt.baseline_spec);
    report.notes.insert(report.notes.end(), notes.begin(), notes.end());

    fmt::print("{}", gate_table(report));
    if (!opt.markdown.empty()) write_file_atomically(opt.markdown, gate_markdown(report));
    if (!opt.junit.empty()) write_file_atomically(opt.junit, gate_junit(report));
    ctx.exit_code = report.passed() ? 0 : kExitFailure;
  });
}

}  // namespace attn::cli

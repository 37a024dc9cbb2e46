// attn-tune bench: one configuration, every shape of its kernel, full timing statistics.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench_recheck.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "launch_bundle.hpp"
#include "tuner/core/error.hpp"
#include "tuner/export/problem_inputs.hpp"
#include "tuner/plan/run_resolver.hpp"
#include "tuner/record/noise.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/spec/config_assignment.hpp"
#include "tuner/sweep/run_summary.hpp"

namespace attn::cli {

void add_bench_command(CLI::App& app, Context& ctx) {
  auto* cmd =
      app.add_subcommand("bench", "Verify and time one configuration on every shape of its kernel, with full statistics");
  static std::string spec_path, device_id, shapes, kernel_name, preset, set, emit_dir, inputs_dir;
  static bool json = false;
  static RunSettings settings;
  // One configuration, measured in full: a bench has no stages.
  settings.measure.mode = MeasureMode::thorough;
  static RecheckOptions recheck;
  cmd->add_option("spec", spec_path, "Sweep spec (configs/*.json); with --recheck, instead of the recorded one");
  cmd->add_option("--set", set, "Parameter values, NAME=VALUE,... (the rest from --preset or the kernel's baseline)");
  cmd->add_option("--preset", preset, "Start from this preset of the kernel");
  cmd->add_option("-k,--kernel", kernel_name, "Kernel of the spec (default: the first)");
  cmd->add_option("-d,--device", device_id, "Device id (default: the best)");
  cmd->add_option("-s,--shape", shapes, "Shapes: names and/or field overrides, as for sweep");
  cmd->add_flag("--json", json, "Print the results as JSON");
  cmd->add_option("--emit-launch", emit_dir,
                  "Run nothing: write to DIR what another harness needs to launch this configuration as attn-tune "
                  "does (launch.json, the NVRTC binary, the params bytes per shape; no device needed)");
  cmd->add_option("--emit-inputs", inputs_dir,
                  "Run nothing: write to DIR the inputs attn-tune draws from --seed for each shape of the kernel "
                  "(inputs.json, and <shape>.<buffer>.bin per input, raw bytes as uploaded; no device needed), for "
                  "a harness that must run on the same data");
  auto* check = cmd->add_option_group("Recheck", "Re-time a leaderboard's best configurations (docs/timing.md)");
  check
      ->add_option("--recheck", recheck.leaderboard,
                   "Re-time this leaderboard's --top configurations per (kernel, shape), interleaved, with its "
                   "recorded settings; exit 1 when any median differs by more than --tolerance")
      ->check(CLI::ExistingFile);
  check->add_option("--top", recheck.top, "--recheck: configurations per (kernel, shape)")->capture_default_str();
  check->add_option("--rounds", recheck.rounds, "--recheck: interleaved rounds (A B C A B C ...)")->capture_default_str();
  check->add_option("--tolerance", recheck.tolerance_percent, "--recheck: largest difference that passes, in percent")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  settings.timing.min_samples = 30;
  add_run_options(cmd, settings);
  cmd->callback([&ctx] {
    if (!recheck.leaderboard.empty()) {
      recheck.spec = spec_path;
      recheck.device = device_id;
      ctx.exit_code = run_recheck_command(recheck);
      return;
    }
    if (spec_path.empty()) throw UsageError("bench needs a spec (or --recheck LEADERBOARD)");
    const Spec spec =
        resolve_spec({spec_path, shapes, kernel_name.empty() ? std::vector<std::string>{} : std::vector{kernel_name}});
    const KernelSpec& kernel = single_kernel(spec, kernel_name);
    if (!inputs_dir.empty()) {
      const int written = write_problem_inputs(spec, kernel.shapes, settings.seed, inputs_dir);
      fmt::print("{} input buffers of {} shapes written to {} (seed {})\n", written, kernel.shapes.size(), inputs_dir,
                 settings.seed);
      ctx.exit_code = written > 0 ? 0 : kExitFailure;
      return;
    }
    const Config config = config_from_assignments(kernel, preset, set);
    if (!emit_dir.empty()) {
      const int written = write_launch_bundle(spec, kernel, config, settings.seed, emit_dir);
      fmt::print("{}: {} of {} shapes written to {}\n", config_key(config), written, kernel.shapes.size(), emit_dir);
      ctx.exit_code = written > 0 ? 0 : kExitFailure;
      return;
    }
    const std::string device = resolve_device(spec, device_id);
    auto runner = settings.isolate ? make_worker_runner(spec, device, settings, shapes)
                                   : make_in_process_runner(spec, device, settings);
    const std::string backend = runner->device_info().backend;
    if (std::find(kernel.backends.begin(), kernel.backends.end(), backend) == kernel.backends.end())
      throw UsageError(
          fmt::format("kernel '{}' has no {} source: pick a device of another backend with --device", kernel.name, backend));

    nlohmann::json all = nlohmann::json::array();
    bool any_failed = false;
    RunSummary summary;
    if (!json) fmt::print("{} on {} ({})\n", config_key(config), runner->device_info().name, runner->device_info().id);
    for (const auto& shape : kernel.shapes) {
      const ConfigResult r = runner->run(Job{kernel.name, shape, config, kernel.preset_label(config)});
      all.push_back(r.to_json());
      summary.add(r);
      if (json) continue;
      fmt::print("\n{} / {}: {}\n", kernel.name, shape, status_name(r.status));
      if (r.status != Status::ok) {
        any_failed = true;
        fmt::print("  {}\n", r.reason);
        if (!r.log.empty()) fmt::print("  log:\n{}\n", r.log);
        continue;
      }
      const SampleStats& t = *r.timing;
      fmt::print("  median {:.5f} ms   min {:.5f}   q1 {:.5f}   q3 {:.5f}   max {:.5f}\n", t.median_ms, t.min_ms, t.q1_ms,
                 t.q3_ms, t.max_ms);
      fmt::print("  noise {:.2f}% over {} samples ({}converged, {:.2f} s)\n", 100 * measurement_noise(t), t.samples,
                 t.converged ? "" : "not ", t.wall_s);
      if (const auto& c = r.clocks)
        fmt::print("  SM clock {:.0f} MHz (min {:.0f}, expected {:.0f}){}, reasons: {}{}\n", c->sm_mhz_median, c->sm_mhz_min,
                   c->expected_sm_mhz, c->power_w_median ? fmt::format(", power {:.0f} W", *c->power_w_median) : "",
                   c->reasons.empty() ? "none" : fmt::format("{}", fmt::join(c->reasons, ", ")),
                   c->throttled ? "; THROTTLED" : "");
      fmt::print("  {:.1f} GFLOP/s   {:.2f} GB/s   compile {:.0f} ms\n", r.gflops, r.gbps, r.compile_ms);
      fmt::print("  verified: rel_l2 {:.3g}, max_abs {:.3g} over {} of {} rows\n", r.verify->rel_l2, r.verify->max_abs,
                 r.verify->rows_checked, r.verify->rows_total);
      for (const auto& [entry, res] : r.resources) fmt::print("  {}: {}\n", entry, res.to_json().dump());
    }
    if (json) fmt::print("{}\n", all.dump(2));
    if (!summary.any_ok()) fmt::print(stderr, "{}", summary.failure_text());
    ctx.exit_code = any_failed ? kExitFailure : 0;
  });
}

}  // namespace attn::cli

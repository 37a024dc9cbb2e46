// attn-tune determinism: the determinism matrix (D x KV x GQA x mask/ALiBi/sinks,
// each point checked across runs, across batch sizes and under decode cache
// growth) on one configuration of a spec's kernel.
#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/backend/registry.hpp"
#include "tuner/check/determinism_matrix.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/core/version.hpp"
#include "tuner/measure/evaluator.hpp"
#include "tuner/plan/run_resolver.hpp"
#include "tuner/spec/config_assignment.hpp"

namespace attn::cli {

void add_determinism_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "determinism",
      "Check one configuration for bitwise determinism on a matrix of shapes: D x KV x GQA x mask/ALiBi/sinks,\n"
      "each point run several times (cross-run), at B=1 against B=2,8,33 (batch invariance), and decoded\n"
      "one position at a time against all at once (cache growth). Points the kernel's constraints exclude\n"
      "are skipped with the reason. Exit code 1 when a point fails or misses the reference.");
  static std::string spec_path, device_id, shapes, kernel_name, preset, set, features;
  static std::filesystem::path out;
  static bool quick = false, json = false;
  static std::vector<int> head_dims, kv_lengths, batch_sizes, gqa;
  static RunSettings settings;
  // Its timings are a thorough measurement: no stages.
  settings.measure.mode = MeasureMode::thorough;
  static DeterminismOptions options;
  cmd->add_option("spec", spec_path, "Sweep spec (configs/*.json)")->required();
  cmd->add_option("--set", set, "Parameter values, NAME=VALUE,... (the rest from --preset or the kernel's baseline)");
  cmd->add_option("--preset", preset, "Start from this preset of the kernel");
  cmd->add_option("-k,--kernel", kernel_name, "Kernel of the spec (default: the first)");
  cmd->add_option("-d,--device", device_id, "Device id (default: the best)");
  cmd->add_option("-s,--shape", shapes,
                  "The shape the matrix varies (dtype, Hq, Nq, causal, window): the kernel's first shape after this "
                  "selection, e.g. decode-4k-b4,Hq=8");
  cmd->add_option("-o,--out", out, "Write the JSON report here");
  cmd->add_flag("--json", json, "Print the JSON report instead of the table");
  cmd->add_flag("--quick", quick, "CI subset: D=64, KV=256, GQA 1 and 2, features all off or all on");
  cmd->add_option("--head-dims", head_dims, "D values (default 64,128,256)")->delimiter(',');
  cmd->add_option("--kv", kv_lengths, "KV lengths (default 256,1024,4096)")->delimiter(',');
  cmd->add_option("--batch-sizes", batch_sizes, "Batch sizes; B=1 is the reference (default 1,2,8,33)")->delimiter(',');
  cmd->add_option("--gqa", gqa, "GQA ratios Hq/Hkv (default 1,2,4)")->delimiter(',');
  cmd->add_option("--features", features,
                  "Features toggled on and off: a list of mask,alibi,sinks; `all` = all on or all off; `none`");
  cmd->add_option("--runs", options.runs, "Cross-run: runs of the same inputs")->capture_default_str();
  cmd->add_option("--cache-growth-steps", options.cache_growth_steps,
                  "Decode positions one at a time vs all at once (< 2: off)")
      ->capture_default_str();
  cmd->add_option("--seed", settings.seed, "Seed of the random inputs")->capture_default_str();
  cmd->callback([&ctx] {
    const ResolvedRun run = resolve_run(
        {spec_path, shapes, kernel_name.empty() ? std::vector<std::string>{} : std::vector{kernel_name}}, device_id);
    const Spec& spec = run.spec;
    const KernelSpec& kernel = single_kernel(spec, kernel_name);
    const Config config = config_from_assignments(kernel, preset, set);

    MatrixAxes axes = quick ? MatrixAxes::quick() : MatrixAxes{};
    if (!head_dims.empty()) axes.head_dims = head_dims;
    if (!kv_lengths.empty()) axes.kv_lengths = kv_lengths;
    if (!batch_sizes.empty()) axes.batch_sizes = batch_sizes;
    if (!gqa.empty()) axes.gqa = gqa;
    if (!features.empty()) {
      axes.toggles.clear();
      std::stringstream in(features);
      for (std::string f; std::getline(in, f, ',');) {
        if (f != "mask" && f != "alibi" && f != "sinks" && f != "all" && f != "none")
          throw UsageError(fmt::format("--features: '{}' is not one of mask, alibi, sinks, all, none", f));
        if (f != "none") axes.toggles.push_back(f);
      }
    }

    const std::string& id = run.device_id;
    auto device = open_device(id);
    Evaluator evaluator(spec, *device, settings);
    const nlohmann::json base = spec.shape(kernel.shapes.front()).fields;
    const std::size_t total = matrix_points(axes, base).size();
    if (!json)
      fmt::print(stderr, "{} / {} on {} ({}): {} matrix points\n", kernel.name, config_key(config), device->info().name, id,
                 total);

    std::size_t done = 0;
    nlohmann::json report =
        run_determinism_matrix(evaluator, kernel, config, base, axes, options, [&](const nlohmann::json& r) {
          const std::string reason = r.value("reason", "");
          fmt::print(stderr, "[{}/{}] D={} KV={} GQA={}{}{}{}: {}{}\n", ++done, total, r["point"]["D"].get<int>(),
                     r["point"]["KV"].get<int>(), r["point"]["GQA"].get<int>(),
                     r["point"]["mask"].get<bool>() ? " mask" : "", r["point"]["alibi"].get<bool>() ? " alibi" : "",
                     r["point"]["sinks"].get<bool>() ? " sinks" : "", r["status"].get<std::string>(),
                     reason.empty() ? "" : " (" + reason + ")");
        });
    report["schema"] = "attn-tune.determinism/1";
    report["attn_tune"] = {{"version", kVersion}, {"git_commit", kGitCommit}};
    report["command"] = ctx.command_line;
    report["device"] = device->info().to_json();
    report["spec"] = {{"path", spec.path.string()}, {"name", spec.name}, {"sha256", spec.sha256}};
    report["kernel"] = kernel.name;
    report["config"] = {{"key", config_key(config)}, {"preset", kernel.preset_label(config)}};
    report["seed"] = settings.seed;
    report["options"] = {{"runs", options.runs}, {"cache_growth_steps", options.cache_growth_steps}};

    if (!out.empty()) write_file_atomically(out, report.dump(2) + "\n");
    const auto& s = report.at("summary");
    if (json) {
      fmt::print("{}\n", report.dump(2));
    } else {
      fmt::print("{} / {} ({})\n{}", kernel.name, config_key(config), device->info().name,
                 matrix_table(report.at("points")));
      fmt::print("{} points: {} passed, {} failed, {} incorrect, {} skipped\n", s.at("points").get<int>(),
                 s.at("passed").get<int>(), s.at("failed").get<int>(), s.at("incorrect").get<int>(),
                 s.at("skipped").get<int>());
    }
    if (!out.empty()) fmt::print(stderr, "report: {}\n", out.string());
    const bool bad = s.at("failed").get<int>() + s.at("incorrect").get<int>() > 0;
    if (!bad && s.at("passed").get<int>() == 0) fmt::print(stderr, "no matrix point could run on this kernel\n");
    ctx.exit_code = bad || s.at("passed").get<int>() == 0 ? kExitFailure : 0;
  });
}

}  // namespace attn::cli

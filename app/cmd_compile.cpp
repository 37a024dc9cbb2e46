// attn-tune compile: every configuration compiled, nothing run, with registers,
// spills, shared memory and occupancy. Needs no GPU for CUDA.
#include <algorithm>
#include <regex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/device/offline_compiler.hpp"
#include "tuner/plan/run_resolver.hpp"
#include "tuner/sweep/compile_report.hpp"

namespace attn::cli {
namespace {

// The spec loader's pattern for cuda_arch: a typo is a usage error, not a compile failure per configuration.
CLI::Validator cuda_arch_validator() {
  return CLI::Validator(
      [](const std::string& arch) {
        if (!std::regex_match(arch, std::regex("sm_[0-9]+[af]?")))
          return fmt::format("'{}' is not a CUDA architecture: expected sm_XX or sm_XXa (e.g. sm_80, sm_90, sm_90a)", arch);
        // The number must be one this NVRTC compiles for ("sm_90a" is sm_90's arch-specific variant).
        std::vector<std::string> known;
        try {
          known = offline_compiler().supported_architectures();
        } catch (const std::exception&) {
          return std::string();  // no CUDA backend: compile says so itself
        }
        const std::string base = arch.back() == 'a' || arch.back() == 'f' ? arch.substr(0, arch.size() - 1) : arch;
        if (known.empty() || std::find(known.begin(), known.end(), base) != known.end()) return std::string();
        return fmt::format("'{}' is not an architecture this NVRTC compiles for (it knows: {})", arch,
                           fmt::join(known, ", "));
      },
      "sm_XX|sm_XXa");
}

std::string optional_text(const std::optional<long long>& v) { return v ? std::to_string(*v) : "-"; }

void print_table(const CompileReport& report) {
  fmt::print("{:<10} {:<28} {:<44} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>9}\n", "kernel", "shape", "configuration", "regs",
             "spill-st", "spill-ld", "stack", "smem", "occ", "compile");
  for (const auto& c : report.configs) {
    std::string label = config_key(c.job.config);
    if (!c.job.preset.empty()) label += fmt::format(" ({})", c.job.preset);
    if (c.status != Status::ok) {
      fmt::print("{:<10} {:<28} {:<44} {}: {}\n", c.job.kernel, c.job.shape, label, status_name(c.status),
                 c.reason.substr(0, 120));
      continue;
    }
    bool first = true;
    for (const auto& [entry, r] : c.resources) {
      const std::string occ = r.theoretical_occupancy ? fmt::format("{:.0f}%", 100 * *r.theoretical_occupancy) : "-";
      fmt::print("{:<10} {:<28} {:<44} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8}{}\n", first ? c.job.kernel : "",
                 first ? c.job.shape : "", first ? label : "  " + entry, optional_text(r.registers),
                 optional_text(r.spill_store_bytes), optional_text(r.spill_load_bytes), optional_text(r.private_mem_bytes),
                 optional_text(r.static_local_bytes), occ,
                 c.cached            ? "reused"
                 : c.from_disk_cache ? "cache hit"
                                     : fmt::format("{:.0f}ms", c.compile_ms),
                 c.resources.size() > 1 && first ? fmt::format("  [{}]", entry) : "");
      first = false;
    }
  }
}

}  // namespace

void add_compile_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "compile", "Compile every configuration without running it; report registers, spills, shared memory, occupancy");
  cmd->footer(
      "CUDA kernels are compiled with NVRTC for --arch (no GPU or driver needed) and ptxas' verbose report gives\n"
      "registers, spill stores/loads, stack frame and static shared memory; theoretical occupancy comes from the\n"
      "architecture's limits and each launch's block size and shared memory. With --device, kernels of that device's\n"
      "backend (OpenCL too) are compiled on it. ptxas' \"Potential Performance Loss\" notes (e.g. wgmma serialized,\n"
      "C7514) are counted in the summary and kept as `compiler_notes` in the JSON and in leaderboards.\n"
      "Exit 1 when any configuration fails to compile.");
  static std::vector<std::string> spec_paths;
  static std::string shapes, out;
  static std::vector<std::string> kernels;
  static CompileOptions options;
  static bool json = false;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cmd->add_option("specs", spec_paths, "Sweep specs (configs/*.json); configurations they share compile once")->required();
  cmd->add_option("--arch", options.arch,
                  "CUDA architecture when compiling without a device, sm_XX or sm_XXa (the spec's cuda_arch wins)")
      ->check(cuda_arch_validator())
      ->capture_default_str();
  cmd->add_option("-d,--device", options.device_id, "Compile on this device instead (any backend)");
  cmd->add_option("-s,--shape", shapes, "Shapes: names and/or field overrides, as for sweep");
  cmd->add_option("-k,--kernel", kernels, "Only these kernels (repeatable)");
  cmd->add_option("-j,--jobs", options.jobs, "Parallel NVRTC compilations (default: the CPU count)");
  cmd->add_option("--compiler-option", options.extra_options,
                  "A compiler option after the spec's, repeatable (--compiler-option=--Ofast-compile=min checks that "
                  "every configuration compiles, several times sooner; registers are then that level's)");
  cmd->add_option("-o,--out", out, "Also write the report as JSON to this file");
  cmd->add_flag("--json", json, "Print JSON instead of the table");
  static CompileCacheSettings cache_settings;
  add_cache_options(cmd, cache_settings);
  cmd->callback([&ctx] {
    configure_compile_cache(cache_settings);
    CompileCache cache;
    nlohmann::json reports = nlohmann::json::array();
    int failed = 0;
    const std::vector<Spec> specs =
        resolve_specs(std::vector<std::filesystem::path>(spec_paths.begin(), spec_paths.end()), shapes, kernels);
    for (const auto& spec : specs) {
      const CompileReport report = compile_spec(spec, options, &cache);
      nlohmann::json j = report.to_json();
      j["spec"] = {{"path", spec.path.string()}, {"sha256", spec.sha256}};
      reports.push_back(std::move(j));
      if (!json) {
        if (specs.size() > 1) fmt::print("\n{}\n", spec.path.string());
        print_table(report);
      }
      int spilling = 0, noted = 0;
      const CompiledConfig* first_noted = nullptr;
      for (const auto& c : report.configs) {
        spilling += c.spills();
        if (!c.first_compiler_note().empty()) {
          ++noted;
          if (!first_noted) first_noted = &c;
        }
      }
      fmt::print(
          stderr,
          "{}: {} configurations, {} compiled, {} from cache for {} {}: {} ok, {} compile_failed, {} skipped; {} spill{}\n",
          spec.path.string(), report.configs.size(), report.compiles - report.cache_hits, report.cache_hits, report.backend,
          report.arch, report.count(Status::ok), report.count(Status::compile_failed), report.count(Status::skipped),
          spilling, noted ? fmt::format("; {} with a ptxas performance note", noted) : "");
      // A shape a kernel cannot take at all (e.g. a head dimension outside its constraints) is said by name.
      for (const auto& x : report.exclusions) fmt::print(stderr, "  {}\n", x.text());
      // A serialized wgmma pipeline compiles and runs correctly, only slower: say so before anyone times it.
      if (first_noted)
        fmt::print(stderr, "  e.g. {} {}: {}\n", first_noted->job.kernel, config_key(first_noted->job.config),
                   first_noted->first_compiler_note());
      failed += report.count(Status::compile_failed);
    }
    // One spec: its report; several: {"reports": [...]}.
    const nlohmann::json result = reports.size() == 1 ? reports[0] : nlohmann::json{{"reports", reports}};
    if (!out.empty()) write_file_atomically(out, result.dump(2) + "\n");
    if (json) fmt::print("{}\n", result.dump(2));
    ctx.exit_code = failed > 0 ? kExitFailure : 0;
  });
}

}  // namespace attn::cli

// attn-tune space: how many configurations a spec holds per (kernel, shape), and
// which constraints exclude the rest, without a device or running anything.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/run_resolver.hpp"
#include "tuner/search/space_census.hpp"

namespace attn::cli {
namespace {

struct PairCensus {
  const KernelSpec* kernel;
  std::string shape;
  SpaceCensus census;
};

std::string percent(long long part, long long whole) {
  return whole == 0 ? "-" : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

void print_table(const std::vector<PairCensus>& pairs) {
  for (const auto& p : pairs) {
    const SpaceCensus& c = p.census;
    fmt::print("{} on {} ({}): {} in the product, {}{} valid ({}){}\n", p.kernel->name, p.shape,
               fmt::join(p.kernel->backends, ", "), c.product, c.exact ? "" : "~", c.valid, percent(c.valid, c.product),
               c.exact ? "" : fmt::format(", estimated from {} sampled points", c.examined));
    for (std::size_t i = 0; i < c.excluded_by.size(); ++i)
      fmt::print("  excluded first by {}: {}{}\n", p.kernel->constraints[i].label(), c.exact ? "" : "~", c.excluded_by[i]);
  }
}

// Write-only, each field named once (`space --json`), from the spec's kernels and the census.
nlohmann::json to_json(const Spec& spec, const std::vector<PairCensus>& pairs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : pairs) {
    nlohmann::json excluded = nlohmann::json::array();
    for (std::size_t i = 0; i < p.census.excluded_by.size(); ++i) {
      nlohmann::json e = {{"constraint", p.kernel->constraints[i].text()}, {"count", p.census.excluded_by[i]}};
      if (!p.kernel->constraints[i].name.empty()) e["name"] = p.kernel->constraints[i].name;
      excluded.push_back(std::move(e));
    }
    out.push_back({{"kernel", p.kernel->name},
                   {"shape", p.shape},
                   {"backends", p.kernel->backends},
                   {"product", p.census.product},
                   {"valid", p.census.valid},
                   {"exact", p.census.exact},
                   {"examined", p.census.examined},
                   {"excluded_first_by", excluded}});
  }
  return {{"schema", "attn-tune.space/1"}, {"spec", spec.name}, {"pairs", out}};
}

}  // namespace

void add_space_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "space",
      "Count a spec's configurations per (kernel, shape) without a device: the product of the parameters'\n"
      "values, how many every constraint accepts, and how many each constraint was the first to exclude.\n"
      "The product is walked point by point; beyond --exact-up-to points the counts are estimated from a\n"
      "uniform sample (marked ~).\n\n"
      "  attn-tune space configs/flash_attn_decode.json -s fp16-h32-kv8-n4096");
  static RunSelection selection;
  static CensusLimits limits;
  static bool json = false;
  cmd->add_option("spec", selection.spec_path, "Sweep spec (configs/*.json)")->required();
  cmd->add_option("-s,--shape", selection.shapes,
                  "Shapes to count: names (prefill-512,decode-4k) and/or field overrides (Nq=2048,causal=1)");
  cmd->add_option("-k,--kernel", selection.kernels, "Only these kernels of the spec (repeatable)");
  cmd->add_option("--exact-up-to", limits.exact_up_to, "Larger products are estimated from a sample")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--samples", limits.samples, "Points sampled for an estimate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", json, "Print the counts as JSON");
  cmd->callback([&ctx] {
    (void)ctx;
    const Spec spec = resolve_spec(selection);
    const Operation& op = spec_operation(spec);
    std::vector<PairCensus> pairs;
    // The planner's order: shape-major, each kernel that runs the shape.
    for (const auto& shape : spec.shapes) {
      const Bindings variables = op.variables(shape.fields);
      for (const auto& kernel : spec.kernels) {
        if (std::find(kernel.shapes.begin(), kernel.shapes.end(), shape.name) == kernel.shapes.end()) continue;
        pairs.push_back({&kernel, shape.name, census(ConstrainedSpace(kernel, variables), limits)});
      }
    }
    if (json) fmt::print("{}\n", to_json(spec, pairs).dump(2));
    else print_table(pairs);
  });
}

}  // namespace attn::cli

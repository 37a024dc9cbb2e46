#include "tuner/plan/launch_plan.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>

#include <fmt/format.h>

#include "tuner/record/result.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

long long eval_dim(const Expression& e, const Bindings& b, const std::string& what) {
  long long v;
  try {
    v = e.eval(b);
  } catch (const ExpressionError& err) {
    throw Outcome{Status::skipped, fmt::format("{} cannot be evaluated: {}", what, err.what()), {}};
  }
  if (v < 0) throw Outcome{Status::skipped, fmt::format("{} = `{}` is negative ({})", what, e.text(), v), {}};
  return v;
}

}  // namespace

std::string defines_string(const std::vector<Define>& defines) {
  std::string s;
  for (const auto& d : defines) s += fmt::format("{}-D {}={}", s.empty() ? "" : " ", d.name, d.value);
  return s;
}

std::string program_key(const std::vector<Define>& defines, const std::vector<std::string>& entries) {
  std::string key = defines_string(defines);
  for (const auto& e : entries) key += " | " + e;
  return key;
}

std::string instantiate_entry(const std::string& entry, const Bindings& bindings, const Config& config) {
  const auto lt = entry.find('<');
  if (lt == std::string::npos) return entry;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out = entry.substr(0, lt);
  for (std::size_t i = lt; i < entry.size();) {
    if (!word(entry[i])) {
      out += entry[i++];
      continue;
    }
    std::size_t end = i;
    while (end < entry.size() && (word(entry[end]) || entry[end] == '.')) ++end;
    const std::string token = entry.substr(i, end - i);
    // Only a whole token that is a name binds: "0.5f" and "1e3" are literals.
    const bool name = !std::isdigit(static_cast<unsigned char>(token[0]));
    const auto param = std::find_if(config.begin(), config.end(), [&](auto& p) { return name && p.first == token; });
    const auto bound = name ? bindings.find(token) : bindings.end();
    // A parameter as C++ writes it (true, 0.5, float); a shape variable as its integer.
    out += param != config.end() ? param->second.text() : bound != bindings.end() ? std::to_string(bound->second) : token;
    i = end;
  }
  return out;
}

Bindings with_compute_units(Bindings shape_variables, int compute_units) {
  shape_variables[kComputeUnitsVariable] = compute_units > 0 ? compute_units : kPlanningComputeUnits;
  return shape_variables;
}

LaunchPlan plan_launches(const KernelSpec& kernel, const Config& config, const Bindings& shape_variables) {
  Bindings b = config_bindings(shape_variables, config);
  b.try_emplace(kComputeUnitsVariable, kPlanningComputeUnits);
  if (std::string why = failed_constraint(kernel, b); !why.empty()) throw Outcome{Status::skipped, why, {}};

  LaunchPlan plan;
  for (const auto& [name, value] : config) plan.defines.push_back({name, value.define_text()});
  for (const auto& [name, expr] : kernel.defines) plan.defines.push_back({name, eval_dim(expr, b, "defines." + name)});

  for (std::size_t l = 0; l < kernel.launches.size(); ++l) {
    const LaunchSpec& ls = kernel.launches[l];
    Launch launch;
    launch.entry = instantiate_entry(ls.entry, b, config);
    for (std::size_t d = 0; d < ls.grid.size(); ++d)
      launch.grid[d] = eval_dim(ls.grid[d], b, fmt::format("launches[{}].grid[{}]", l, d));
    for (std::size_t d = 0; d < ls.block.size(); ++d)
      launch.block[d] = eval_dim(ls.block[d], b, fmt::format("launches[{}].block[{}]", l, d));
    for (std::size_t d = 0; d < ls.cluster.size(); ++d) {
      const std::string what = fmt::format("launches[{}].cluster[{}]", l, d);
      launch.cluster[d] = eval_dim(ls.cluster[d], b, what);
      if (launch.cluster[d] == 0) throw Outcome{Status::skipped, what + " is 0", {}};
      if (launch.grid[d] % launch.cluster[d] != 0)
        throw Outcome{Status::skipped,
                      fmt::format("{}: grid[{}] = {} is not a multiple of the cluster's {}", launch.entry, d, launch.grid[d],
                                  launch.cluster[d]),
                      {}};
    }
    if (launch.cluster[0] * launch.cluster[1] * launch.cluster[2] > kMaxClusterBlocks)
      throw Outcome{Status::skipped,
                    fmt::format("{}: a cluster of {}x{}x{} blocks exceeds {}", launch.entry, launch.cluster[0],
                                launch.cluster[1], launch.cluster[2], kMaxClusterBlocks),
                    {}};
    if (ls.shared_bytes)
      launch.dynamic_shared_bytes = eval_dim(*ls.shared_bytes, b, fmt::format("launches[{}].shared_bytes", l));
    const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (threads == 0 || launch.grid[0] * launch.grid[1] * launch.grid[2] == 0)
      throw Outcome{Status::skipped,
                    fmt::format("{}: empty launch (grid {}x{}x{}, block {} threads)", ls.entry, launch.grid[0],
                                launch.grid[1], launch.grid[2], threads),
                    {}};
    if (std::find(plan.entries.begin(), plan.entries.end(), launch.entry) == plan.entries.end())
      plan.entries.push_back(launch.entry);
    plan.launches.push_back(launch);
  }
  if (kernel.workspace_bytes) plan.workspace_bytes = eval_dim(*kernel.workspace_bytes, b, "workspace_bytes");
  for (std::size_t m = 0; m < kernel.tensor_maps.size(); ++m) {
    const TensorMapSpec& ts = kernel.tensor_maps[m];
    TensorMapPlan t{ts.buffer, ts.element, {}, {}, ts.swizzle};
    for (std::size_t d = 0; d < ts.dims.size(); ++d)
      t.dims.push_back(static_cast<std::uint64_t>(eval_dim(ts.dims[d], b, fmt::format("tensor_maps[{}].dims[{}]", m, d))));
    for (std::size_t d = 0; d < ts.box.size(); ++d)
      t.box.push_back(static_cast<std::uint32_t>(
          std::min<long long>(eval_dim(ts.box[d], b, fmt::format("tensor_maps[{}].box[{}]", m, d)), UINT32_MAX)));
    plan.tensor_maps.push_back(std::move(t));
  }
  return plan;
}

}  // namespace attn

#include "tuner/plan/run_resolver.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/shape_selection.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

std::vector<std::string> kernel_names(const Spec& spec) {
  std::vector<std::string> names;
  for (const auto& k : spec.kernels) names.push_back(k.name);
  return names;
}

bool has_kernel(const Spec& spec, const std::string& name) {
  return std::any_of(spec.kernels.begin(), spec.kernels.end(), [&](const KernelSpec& k) { return k.name == name; });
}

void check_kernel_names(const std::vector<std::string>& kernels) {
  for (const auto& name : kernels)
    if (name.empty()) throw UsageError("--kernel: an empty kernel name selects nothing");
}

std::string shape_list(const std::vector<std::string>& shapes) {
  return shapes.empty() ? std::string("none") : fmt::format("{}", fmt::join(shapes, ", "));
}

// Keeps the kernels named in KERNELS (all when empty) and applies --shape.
void apply_selection(Spec& spec, const std::string& shapes, const std::vector<std::string>& kernels) {
  std::map<std::string, std::vector<std::string>> shapes_before;  // to say which shapes a named kernel has
  for (const auto& k : spec.kernels) shapes_before[k.name] = k.shapes;
  if (!kernels.empty())
    std::erase_if(spec.kernels,
                  [&](const KernelSpec& k) { return std::find(kernels.begin(), kernels.end(), k.name) == kernels.end(); });
  select_shapes(spec, shapes);

  std::vector<std::string> shape_names;
  for (const auto& s : spec.shapes) shape_names.push_back(s.name);
  for (const auto& k : spec.kernels)
    if (!kernels.empty() && k.shapes.empty())
      throw UsageError(fmt::format("{}: --kernel {} runs none of the selected shapes ({}); its shapes: {}",
                                   spec.path.string(), k.name, shape_list(shape_names), shape_list(shapes_before[k.name])));
  if (std::none_of(spec.kernels.begin(), spec.kernels.end(), [](const KernelSpec& k) { return !k.shapes.empty(); }))
    throw UsageError(
        fmt::format("{}: no kernel runs the selected shapes ({})", spec.path.string(), shape_list(shape_names)));
}

}  // namespace

std::vector<Spec> resolve_specs(const std::vector<std::filesystem::path>& spec_paths, const std::string& shapes,
                                const std::vector<std::string>& kernels) {
  check_kernel_names(kernels);
  std::vector<Spec> specs;
  for (const auto& path : spec_paths) specs.push_back(load_spec(path));
  for (const auto& name : kernels) {
    if (std::any_of(specs.begin(), specs.end(), [&](const Spec& s) { return has_kernel(s, name); })) continue;
    std::vector<std::string> known;
    for (const auto& spec : specs)
      for (const auto& k : kernel_names(spec)) known.push_back(k);
    if (specs.size() == 1)
      throw UsageError(fmt::format("{}: --kernel: no kernel named '{}' (kernels: {})", specs[0].path.string(), name,
                                   fmt::join(known, ", ")));
    throw UsageError(fmt::format("--kernel: no kernel named '{}' in any of the {} specs (kernels: {})", name, specs.size(),
                                 fmt::join(known, ", ")));
  }
  std::vector<Spec> resolved;
  for (auto& spec : specs) {
    std::vector<std::string> here;
    for (const auto& name : kernels)
      if (has_kernel(spec, name)) here.push_back(name);
    if (!kernels.empty() && here.empty()) continue;
    apply_selection(spec, shapes, here);
    resolved.push_back(std::move(spec));
  }
  return resolved;
}

Spec resolve_spec(const RunSelection& selection) {
  return std::move(resolve_specs({selection.spec_path}, selection.shapes, selection.kernels).front());
}

std::vector<std::string> spec_backends(const Spec& spec) {
  std::vector<std::string> backends;
  for (const auto& [backend, _] : spec.sources) backends.push_back(backend);
  return backends;
}

std::string resolve_device(const Spec& spec, const std::string& device_id) {
  return device_id.empty() ? best_device_id(spec_backends(spec)) : require_device(device_id);
}

ResolvedRun resolve_run(const RunSelection& selection, const std::string& device_id) {
  ResolvedRun run{resolve_spec(selection), {}};
  run.device_id = resolve_device(run.spec, device_id);
  return run;
}

const KernelSpec& single_kernel(const Spec& spec, const std::string& name) {
  if (!name.empty()) return spec.kernel(name);  // resolve_spec checked it has a shape
  for (const auto& k : spec.kernels)
    if (!k.shapes.empty()) return k;
  throw UsageError(fmt::format("{}: no kernel has a shape left after --shape", spec.path.string()));
}

}  // namespace attn

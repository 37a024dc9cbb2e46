// What every subcommand that runs or compiles a spec resolves first, in one
// place so that they all accept and refuse the same selections: the spec is
// loaded, --shape selects and overrides its shapes, --kernel keeps the named
// kernels, and the device is --device or the best one for the spec's backends.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace attn {

struct RunSelection {
  std::filesystem::path spec_path;
  std::string shapes;                // --shape: names and/or field overrides; empty = all
  std::vector<std::string> kernels;  // --kernel: names; empty = all
};

// Loads the spec and applies the selection. Throws UsageError naming what is
// wrong: an unknown or empty kernel name (listing the spec's kernels), a named
// kernel that runs none of the selected shapes, or a selection that leaves no
// kernel with a shape at all.
Spec resolve_spec(const RunSelection& selection);

// Several specs under one selection (compile): a named kernel must be in at
// least one of them; a spec with none of the named kernels is left out.
std::vector<Spec> resolve_specs(const std::vector<std::filesystem::path>& spec_paths, const std::string& shapes,
                                const std::vector<std::string>& kernels);

// The backends the spec has sources for.
std::vector<std::string> spec_backends(const Spec& spec);

// DEVICE_ID when it names a device, or the best device for the spec's
// backends when it is empty. Throws UsageError listing the devices found.
std::string resolve_device(const Spec& spec, const std::string& device_id);

struct ResolvedRun {
  Spec spec;
  std::string device_id;
};
ResolvedRun resolve_run(const RunSelection& selection, const std::string& device_id);

// The kernel a one-kernel command (bench, determinism) works on: NAME, or the
// spec's first kernel that has a shape left. Throws UsageError when none has.
const KernelSpec& single_kernel(const Spec& spec, const std::string& name);

}  // namespace attn

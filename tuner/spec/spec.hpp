// A sweep spec: what to compile, on which shapes, over which parameter space.
// Loaded and fully validated by load_spec() before any work starts.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/spec/expression.hpp"
#include "tuner/spec/kernel_arguments_spec.hpp"
#include "tuner/spec/param_value.hpp"
#include "tuner/spec/spec_document.hpp"

namespace attn {

class Operation;

// One configuration: parameter values in the spec's parameter order.
using Config = std::vector<std::pair<std::string, ParamValue>>;

// "BLOCK_M=32,BLOCK_N=64", "SCALE=0.5,SPLIT=true,ACC=float": the key a
// configuration is journaled and ranked under.
std::string config_key(const Config& config);

// "B=1 D=128 Hq=8 Nkv=1024 Nq=1024 causal=1 dtype=f16": a shape's fields that are set.
std::string shape_summary(const nlohmann::json& fields);

struct Shape {
  std::string name;
  nlohmann::json fields;  // after the operation's defaults were applied
  // Fields the spec left out that took another field's value (Hkv from Hq, Nkv from Nq): a --shape override of
  // the source carries them along.
  std::map<std::string, std::string> copied_from;
};

// The device's multiprocessor (CUDA) / compute-unit (OpenCL) count, a variable of
// launch grids only: the evaluator binds the device's; planning without a device
// (compile, --emit-launch) binds kPlanningComputeUnits (tuner/plan/launch_plan.hpp).
inline constexpr const char* kComputeUnitsVariable = "compute_units";

struct LaunchSpec {
  std::string entry;
  std::vector<Expression> grid;     // 1 to 3 expressions: work-groups per dimension
  std::vector<Expression> block;    // 1 to 3 expressions: work-items per group
  std::vector<Expression> cluster;  // CUDA thread-block cluster, blocks per dimension (empty: none)
  std::optional<Expression> shared_bytes;
  // This launch's own argument list (a pipeline's prepass, split and merge passes take different ones);
  // empty: the kernel's `arguments`, else the operation's default.
  std::vector<KernelArgument> arguments;
};

// A TMA tensor map passed after the params struct (CUDA kernels): the buffer
// it describes, its dims (innermost first) and the box one copy moves, as
// expressions; strides are those of the packed tensor.
struct TensorMapSpec {
  std::string buffer;   // one of the operation's buffers: "q", "k", ...
  std::string element;  // "f16", "bf16" or "f32"; empty: the shape's dtype
  std::vector<Expression> dims;
  std::vector<Expression> box;
  int swizzle = 0;  // bytes: 0, 32, 64 or 128
};

struct Tolerance {
  double rel_l2 = 1e-4;    // ||out - ref|| / ||ref|| over the verified rows
  double max_abs = 1e-3;   // largest |out - ref| allowed
  long long max_rows = 0;  // rows verified against the reference; 0 = the operation's default
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Tolerance, rel_l2, max_abs, max_rows)

// An integer expression every configuration must make non-zero, with an optional name that the space's census
// and skip reasons show: {"name": "fits_shared_memory", "expr": "BLOCK_N * D * 4 <= 49152"}.
struct Constraint : Expression {
  Constraint(std::string text, const std::vector<std::string>& names, std::string name = {})
      : Expression(std::move(text), names), name(std::move(name)) {}
  std::string name;
  // "fits_shared_memory (`BLOCK_N * D * 4 <= 49152`)", or "`BLOCK_N * D * 4 <= 49152`" when unnamed.
  std::string label() const { return name.empty() ? "`" + text() + "`" : name + " (`" + text() + "`)"; }
};

struct KernelSpec {
  std::string name;
  std::string description;
  std::vector<std::string> shapes;    // names, in spec order
  std::vector<std::string> backends;  // subset of the spec's sources
  // In file order; one kind per parameter (integers, reals, booleans or identifiers).
  std::vector<std::pair<std::string, std::vector<ParamValue>>> params;
  std::vector<std::pair<std::string, Expression>> defines;  // extra -D from the shape
  std::vector<Constraint> constraints;
  std::vector<LaunchSpec> launches;
  std::optional<Expression> workspace_bytes;
  std::vector<TensorMapSpec> tensor_maps;  // kernel arguments after the params struct
  std::vector<KernelArgument> arguments;   // empty: the operation's default (buffers, workspace, params)
  // LAUNCH's list: its own, else the kernel's (empty: the operation's default).
  const std::vector<KernelArgument>& launch_arguments(std::size_t launch) const;
  // Whether any launch is given a declared list (its own or the kernel's), not the operation's default.
  bool declares_arguments() const;
  std::vector<std::pair<std::string, Config>> presets;  // label -> configuration, in file order
  std::string baseline;                                 // a preset label, or empty

  std::vector<std::string> param_names() const;
  // The label of a preset equal to CONFIG, or empty.
  std::string preset_label(const Config& config) const;
};

struct Spec {
  std::filesystem::path path;   // as given
  std::string sha256;           // of the file's bytes, and of every file it extends (SpecDocument::sha256)
  std::vector<SpecFile> files;  // the spec's file, then each file it extends
  std::string name;
  std::string description;
  std::string operation;
  std::shared_ptr<const Operation> custom_operation;                 // "operation": "custom": the one the spec declares
  std::map<std::string, std::filesystem::path> sources;              // backend -> resolved source path
  std::vector<std::filesystem::path> include_dirs;                   // resolved
  std::map<std::string, std::vector<std::string>> compiler_options;  // backend -> flags
  std::string cuda_arch;                                             // empty = the device's
  std::string cuda_compiler = "nvrtc";                               // "nvcc": the toolkit's, for host code
  Tolerance tolerance;
  std::vector<Shape> shapes;
  std::vector<KernelSpec> kernels;

  const Shape& shape(const std::string& name) const;
  const KernelSpec& kernel(const std::string& name) const;
};

}  // namespace attn

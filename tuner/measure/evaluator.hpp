// Compiles, verifies and times one configuration on one shape, in this
// process. Correctness gates timing: nothing is timed before its output
// matched the CPU reference.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/measure/stage_timing.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/kernel_arguments.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/record/result.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// A shape's inputs on the host and on the device.
struct PreparedShape {
  std::string name;
  nlohmann::json fields;
  std::unique_ptr<Problem> problem;
  std::vector<std::unique_ptr<Buffer>> buffers;  // problem->buffers() order
  // Per buffer: its poison repeated (outputs without an init), else empty.
  std::vector<std::vector<std::byte>> poisoned;
  Bindings variables;
  NumberBindings numbers;  // real-valued variables, for float kernel arguments
};

// A configuration made runnable on one prepared shape.
struct Plan {
  const Program* program = nullptr;
  std::vector<Launch> launches;
  std::size_t workspace_bytes = 0;
  std::vector<TensorMapPlan> tensor_maps;             // kernel arguments after the params struct
  std::vector<std::vector<BoundArgument>> arguments;  // per launch, each in its kernel's argument order
};

class Evaluator;

// The workspace's first bytes are zero when a configuration's evaluation starts (and in a newly
// allocated workspace); its verification, checks and timing runs then share them, so a kernel that
// keeps counters there resets them before its last block exits.
inline constexpr std::size_t kZeroedWorkspaceBytes = 16;

// Runs after a configuration verified and before it is timed; records into
// result.checks (determinism, batch invariance). May throw Outcome.
using Checker = std::function<void(Evaluator&, const KernelSpec&, const Job&, const Plan&, ConfigResult&)>;

class Evaluator {
 public:
  Evaluator(const Spec& spec, Device& device, RunSettings settings);

  // Draws SHAPE's inputs, uploads them and computes the CPU reference; kept
  // until another shape is prepared (one shape's buffers live at a time).
  void prepare(const std::string& shape);

  // Lets the device compile JOBS (of the prepared shape) ahead, in parallel
  // where its compiler can; each job's own evaluation still reports its compile.
  void precompile(const std::vector<Job>& jobs);

  // Throws DeviceLost when the device context died (the caller replaces the
  // process); every other failure is a status in the result. Every step verifies the output again before it
  // times; the first step (a screen, or a thorough measurement) also runs the checks.
  ConfigResult evaluate(const Job& job, const MeasureStep& step);
  ConfigResult evaluate(const Job& job) { return evaluate(job, first_step(settings_.measure)); }

  // Building blocks for checks that run a configuration more than once, or on
  // other shapes (determinism and batch invariance).
  // Runs the operation's reference kernel too, where it has one.
  PreparedShape prepare_fields(const std::string& name, const nlohmann::json& fields);
  Plan make_plan(const KernelSpec& kernel, const Config& config, const PreparedShape& shape, ConfigResult& result);
  std::vector<std::vector<std::byte>> run_once(const Plan& plan, const PreparedShape& shape);

  void set_checker(Checker checker) { checker_ = std::move(checker); }

  const Spec& spec() const { return spec_; }
  const RunSettings& settings() const { return settings_; }
  Device& device() { return device_; }

 private:
  CompileRequest compile_request(const std::vector<Define>& defines, const std::vector<std::string>& entries) const;
  const Program& compiled(const std::vector<Define>& defines, const std::vector<std::string>& entries, ConfigResult& result);
  void time(const Plan& plan, const PreparedShape& shape, const MeasureStep& step, ConfigResult& result);
  void run_reference(const DeviceReference& reference, PreparedShape& shape);
  LaunchArguments launch_args(const Plan& plan, const PreparedShape& shape);  // one list per launch
  void ensure_workspace(std::size_t bytes);                                   // at least BYTES (and 16); a new one zeroed
  void zero_workspace();                                                      // its first kZeroedWorkspaceBytes
  // Writes the declared values of SHAPE's buffers reset WHEN (once: those reset once or every run).
  void restore(const PreparedShape& shape, BufferReset when);

  const Spec& spec_;
  Device& device_;
  RunSettings settings_;
  std::string backend_;
  std::string source_text_;
  std::unique_ptr<PreparedShape> prepared_;
  std::map<std::string, std::unique_ptr<Program>> programs_;  // by -D string
  std::unique_ptr<Buffer> workspace_;
  Checker checker_;
  double last_timed_s_ = -1;          // when the device last finished sampling (steady clock); < 0: never here
  Stage last_stage_ = Stage::screen;  // the stage timed last
};

}  // namespace attn

// What one configuration on one shape came to. Failures are data: every
// status carries its reason, and the compiler's log when there is one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/record/clock_record.hpp"
#include "tuner/record/measure_settings.hpp"
#include "tuner/record/stats.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

enum class Status {
  ok,              // verified against the reference and timed
  compile_failed,  // the compiler rejected it; `log` has why
  launch_failed,   // the runtime refused the launch (geometry, resources)
  incorrect,       // ran, but missed the tolerance or left elements unwritten
  skipped,         // not run: a preset breaking a constraint, a device limit exceeded
  crashed,         // the kernel took its process or context down (illegal address, SIGSEGV)
  timeout,         // ran past the watchdog
  host_oom,        // the host could not allocate the shape's inputs, outputs or CPU reference
};

const char* status_name(Status s);
Status status_from_name(const std::string& name);  // throws Error for an unknown name

// What to run: one configuration of one kernel on one shape.
struct Job {
  std::string kernel;
  std::string shape;
  Config config;
  std::string preset;

  std::string key() const;  // "kernel|shape|BLOCK_M=32,..."
  // Hand-written: `params` is a list of [name, value] pairs (the configuration's order), not an object.
  nlohmann::json to_json() const;
  static Job from_json(const nlohmann::json& j);
};

// A configuration that cannot go further, and why: thrown while it is
// planned, compiled or run, and turned into its result's status.
struct Outcome {
  Status status;
  std::string reason;
  std::string log;
};

// A member of a tied set (tuner/record/ties.hpp): within noise of the best after being measured again in turns.
struct Tie {
  int order = 1;  // 1 = the set's winner by the tie rule
  int of = 2;     // members of the set
  double interleaved_median_ms = 0;
  double interleaved_rel_noise = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Tie, order, of, interleaved_median_ms, interleaved_rel_noise)

// Where one evaluation's wall time went besides compiling (docs/timing.md's cost table).
struct EvaluationCost {
  double plan_ms = 0;      // launch plan, argument binding, resources (and a compile not done ahead)
  double verify_ms = 0;    // poisoned run, read-back and comparison with the reference
  double checks_ms = 0;    // determinism and batch-invariance runs
  double warmup_ms = 0;    // untimed runs before sampling
  double sampling_ms = 0;  // the timed samples, cache flushes included
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EvaluationCost, plan_ms, verify_ms, checks_ms, warmup_ms, sampling_ms)

struct ConfigResult {
  Job job;
  Status status = Status::skipped;
  std::string reason;                                 // one line: why it is not ok
  std::string log;                                    // the compiler's log (kept for failures, trimmed for successes)
  std::string defines;                                // the exact -D options it was built with
  nlohmann::json launches = nlohmann::json::array();  // as run: entry, grid, block, shared_bytes
  std::size_t workspace_bytes = 0;
  std::optional<SampleStats> timing;
  std::optional<ClockRecord> clocks;  // where the device reports clocks (NVML)
  double gflops = 0;                  // FlashAttention's FLOP convention over the median time
  double gbps = 0;                    // bytes each input read once and output written once, over the median
  std::string item_unit;              // the operation's own throughput unit ("pairs"), empty when none
  double items_per_s = 0;
  double flops = 0;  // of one run, for the record (throughput = flops / median)
  double bytes = 0;
  double compile_ms = 0;
  bool compile_cached = false;                       // its program came from the on-disk compile cache
  std::map<std::string, KernelResources> resources;  // per entry point
  std::optional<VerifyReport> verify;
  std::optional<Tie> tie;                            // set when tied with the best (tuner/record/ties.hpp)
  Stage stage = Stage::thorough;                     // how far its measurement went (record/measure_settings.hpp)
  bool replayed = false;                             // measured by an earlier sweep, read from the measurement store
  std::optional<EvaluationCost> cost;                // of its last evaluation
  nlohmann::json checks = nlohmann::json::object();  // determinism and other checks, by name
  std::string device;                                // the device id that measured it, when a sweep ran on several

  // Hand-written: the job's fields are flattened in, empty and optional fields are left out, the status is read
  // by name with a named error, and files from before stages read as thorough.
  nlohmann::json to_json() const;
  static ConfigResult from_json(const nlohmann::json& j);
};

}  // namespace attn

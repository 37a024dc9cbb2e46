// `attn-tune compile`: every configuration of a spec compiled, nothing run,
// with the compiler's resource report (registers, spills, shared memory,
// occupancy). Works without a GPU for CUDA (NVRTC + ptxas' report).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/plan/run_plan.hpp"
#include "tuner/record/result.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct CompileOptions {
  std::string arch = "sm_90";  // CUDA target when compiling offline (the spec's cuda_arch wins when set)
  std::string device_id;       // compile on this device instead (any backend), one at a time
  int jobs = 1;                // parallel NVRTC compilations
  // Appended after the spec's compiler options, e.g. NVRTC's -Ofast-compile=min: every configuration checked
  // through the whole compiler in a fraction of the time, its resource report then that level's, not a sweep's.
  std::vector<std::string> extra_options;
};

struct CompiledConfig {
  Job job;
  Status status = Status::ok;  // ok, compile_failed or skipped
  std::string reason;
  std::string log;  // the compiler's log for failures
  std::string defines;
  double compile_ms = 0;
  bool cached = false;                               // same -D options as an earlier shape: compiled once
  bool from_disk_cache = false;                      // its compilation was read from the on-disk compile cache
  std::map<std::string, KernelResources> resources;  // per entry point, occupancy for this shape's launch

  nlohmann::json to_json() const;
  bool spills() const;  // any spill store/load bytes in any entry
  // ptxas' first "Potential Performance Loss" note of any entry ("" when none)
  std::string first_compiler_note() const;
};

struct CompileReport {
  std::string backend;  // "cuda" offline, or the device's
  std::string arch;
  std::vector<std::string> extra_options;  // CompileOptions::extra_options, so a report says what it was built with
  std::vector<CompiledConfig> configs;
  int compiles = 0;    // distinct compilations needed
  int cache_hits = 0;  // of which the on-disk compile cache answered (compiled: compiles - cache_hits)
  std::vector<std::string> kernels_not_on_backend;  // no source for the backend: not compiled
  std::vector<Exclusion> exclusions;                // kernel/shape pairs the constraints left empty

  nlohmann::json to_json() const;
  int count(Status s) const;
};

// Programs already compiled, by everything that makes NVRTC's output differ
// (source text, -D, -I, arch, options): specs that share a kernel and its
// configurations (a spec and its _small variant) compile each one once.
class CompileCache {
 public:
  struct Entry {
    std::shared_ptr<const Program> program;  // null when it failed
    std::string error, log;
  };
  static std::string key(const CompileRequest& request);
  const Entry* find(const std::string& key) const;
  void put(const std::string& key, Entry entry);

 private:
  std::map<std::string, Entry> entries_;
};

CompileReport compile_spec(const Spec& spec, const CompileOptions& options, CompileCache* cache = nullptr);

}  // namespace attn

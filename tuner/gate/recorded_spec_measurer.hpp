// Measuring again, on a device, what a leaderboard records: its spec (found
// where the sweep ran, or given), its --shape selection, seed and timing
// settings. The gate's --device and --baseline-spec.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

// The spec LB was swept from: its recorded path from the current directory,
// else from the leaderboard's folder and the folders above it (the path is
// relative to where the sweep ran). Throws UsageError when not found.
std::filesystem::path find_recorded_spec(const Leaderboard& lb);

// How the spec and kernel sources on disk differ from what LB records ("spec
// x.json (sha256 ... on disk)"); empty when they hash the same.
std::vector<std::string> code_differences(const Spec& spec, const Leaderboard& lb);

class RecordedSpecMeasurer {
 public:
  // Loads SPEC_PATH with RECORDED's shape selection and starts a worker on DEVICE_ID.
  RecordedSpecMeasurer(const std::filesystem::path& spec_path, const Leaderboard& recorded, const std::string& device_id);

  const Spec& spec() const { return *spec_; }
  const DeviceInfo& device() { return runner_->device_info(); }

  // A configuration of a kernel or shape the spec no longer has is `skipped`, with why.
  ConfigResult measure(const Job& job);

 private:
  std::unique_ptr<Spec> spec_;  // the runner keeps a reference
  std::unique_ptr<ConfigRunner> runner_;
};

}  // namespace attn

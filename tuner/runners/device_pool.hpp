// Several devices in one sweep: one isolated worker process per device, each
// taking the next configuration from one shared queue. Devices of one model
// share a leaderboard; different models are never ranked together.
#pragma once

#include <csignal>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"
#include "tuner/runners/config_runner.hpp"

namespace attn {

// --device as given: "cuda:1", "cuda:0,cuda:1", "cuda:all", "opencl:all"
// (every device of that backend). Empty: the best device for BACKENDS, or,
// under a launcher that gives a LOCAL_RANK, the LOCAL_RANK-th device of the
// best device's backend and kind. Throws UsageError for an unknown or
// repeated device and for an "all" that finds none.
std::vector<DeviceInfo> resolve_devices(const std::string& text, const std::vector<std::string>& backends,
                                        std::optional<int> local_rank);

// Devices of one model: they share a queue and a leaderboard.
struct DeviceGroup {
  std::string model;  // DeviceInfo::name
  std::vector<std::string> ids;
};
// In the order the models first appear.
std::vector<DeviceGroup> group_by_model(const std::vector<DeviceInfo>& devices);

// Throws UsageError for settings no pool of DEVICE_IDS can run (--no-isolate on several devices).
void require_pool_runs(const std::vector<std::string>& device_ids, const RunSettings& settings);

class DevicePool {
 public:
  // One runner per device (a worker process each when SETTINGS.isolate); several
  // devices need isolation.
  DevicePool(const Spec& spec, const std::vector<std::string>& device_ids, const RunSettings& settings,
             const std::string& shape_selection);
  // Over RUNNERS already made, one for each of DEVICE_IDS (tests give their own).
  DevicePool(std::vector<std::string> device_ids, std::vector<std::unique_ptr<ConfigRunner>> runners);

  const DeviceInfo& device_info() { return runners_.front()->device_info(); }  // the first device's
  const std::vector<std::string>& ids() const { return ids_; }

  struct Callbacks {
    std::function<void(const Job&)> starting;
    // As soon as it is measured: journal it here. False: start no further job.
    std::function<bool(ConfigResult&&)> finished;
  };
  // Runs JOBS in order of the queue, each device taking the next one when it is
  // free; the callbacks are called one at a time. Once STOP is set, or
  // `finished` returned false, no job is started; once STOP is set a result coming back is dropped (the worker died of the
  // same signal). A device whose worker cannot be started again leaves its job to the others; throws that error only when
  // jobs remain that no device can run.
  // STEP: the measurement stage every job is run at (ConfigRunner::run).
  void run(const std::vector<Job>& jobs, const Callbacks& callbacks, const volatile std::sig_atomic_t& stop,
           const std::optional<MeasureStep>& step = std::nullopt);

 private:
  std::vector<std::string> ids_;
  std::vector<std::unique_ptr<ConfigRunner>> runners_;
};

}  // namespace attn

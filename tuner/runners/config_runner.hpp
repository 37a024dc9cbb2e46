// Runs jobs one at a time and always returns a result: in this process, or
// in a worker process that a crash or a hang cannot take the sweep down with.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "tuner/device/device.hpp"
#include "tuner/record/result.hpp"
#include "tuner/record/settings.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

class ConfigRunner {
 public:
  virtual ~ConfigRunner() = default;
  // Never throws for a configuration's own failure; throws Error only when no
  // configuration can run at all (the device cannot be opened). STEP: the measurement stage asked for; none: the
  // settings' first (a screen in a staged sweep, the full measurement in a thorough one).
  virtual ConfigResult run(const Job& job, const std::optional<MeasureStep>& step) = 0;
  ConfigResult run(const Job& job) { return run(job, std::nullopt); }
  virtual const DeviceInfo& device_info() = 0;

  // The next jobs about to be run, in order (the sweep plans a chunk at a
  // time): when the first of a shape's expected jobs comes, the rest are
  // compiled ahead (in parallel where the backend can).
  void expect(std::vector<Job> upcoming) {
    upcoming_ = std::move(upcoming);
    handed_out_.clear();
  }

 protected:
  // The expected jobs of SHAPE, once per expect(): empty when handed out already.
  std::vector<Job> take_upcoming(const std::string& shape);

 private:
  std::vector<Job> upcoming_;
  std::vector<std::string> handed_out_;  // shapes whose expected jobs were taken
};

// In this process: fastest to debug, but a crashing kernel ends the sweep.
std::unique_ptr<ConfigRunner> make_in_process_runner(const Spec& spec, const std::string& device_id,
                                                     const RunSettings& settings);

// In `attn-tune worker` child processes: a crash is recorded `crashed`, a
// configuration past the watchdog `timeout`, and a fresh worker takes over.
// SHAPE_SELECTION is the sweep's --shape, which the worker applies to the spec it loads.
std::unique_ptr<ConfigRunner> make_worker_runner(const Spec& spec, const std::string& device_id, const RunSettings& settings,
                                                 const std::string& shape_selection);

// The executable started as `<exe> worker ...`: this process's own by default;
// tests, which are other executables, point it at attn-tune.
void set_worker_executable(const std::filesystem::path& exe);

// The child side: serves requests from stdin, replies on PROTOCOL_FD. Returns the exit code. With PARENT_PID > 0
// it exits (code 3) as soon as that process is gone.
int serve_worker(const std::filesystem::path& spec_path, const std::string& shape_selection, const std::string& device_id,
                 const RunSettings& settings, int protocol_fd, int parent_pid = 0);

}  // namespace attn

// What earlier sweeps measured, kept on disk by measurement identity (record/measurement_identity.hpp, plus the
// device's model and driver), as Kernel Tuner's cache file: a sweep of unchanged code answers from it instead of
// measuring again. One file per identity under <cache dir>/measurements/, written whole and atomically at the
// end of a complete sweep. `--remeasure` reads nothing from it (and writes what it measured); the gate always
// measures. ATTN_TUNE_MEASUREMENT_STORE=0 turns it off (the test suite does: its tests measure).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"
#include "tuner/record/result.hpp"

namespace attn {

class MeasurementStore {
 public:
  // Off when DIR is empty or the environment turns it off.
  MeasurementStore(std::filesystem::path dir, const nlohmann::json& identity, const DeviceInfo& device);

  bool enabled() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }

  // By job key, each marked `replayed`. Empty when off, when there is no file, or when it cannot be read (a
  // damaged file is measured over, not trusted).
  std::map<std::string, ConfigResult> read() const;

  // Keeps RESULTS (over what the file held, key by key), except those whose status says more about that run
  // than about the configuration (crashed, timeout, host_oom). Returns what went wrong, empty on success: a
  // store that cannot be written costs the next sweep time, not this one's results.
  std::string write(const std::vector<ConfigResult>& results) const;

 private:
  std::filesystem::path path_;
  nlohmann::json identity_;
};

}  // namespace attn

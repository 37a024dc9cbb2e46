// What the device's clocks did while one configuration was timed: the SM and
// memory clocks (min and median over the kept samples), power, temperature,
// why the clocks were held down, and whether clean samples could be had.
// Only where the device reports clocks (NVML): elsewhere a result has none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/device/device.hpp"

namespace attn {

struct ClockRecord {
  double sm_mhz_min = 0, sm_mhz_median = 0, sm_mhz_max = 0;  // the state measured in: the observed SM clock band
  double expected_sm_mhz = 0;                                // the clock samples are held against (0: unknown)
  std::optional<double> mem_mhz_min, mem_mhz_median;
  std::optional<double> power_w_median, power_w_max;
  std::optional<double> temperature_c_max;
  std::vector<std::string> reasons;  // union over the kept samples, "gpu_idle" left out (read between samples)
  int discarded_samples = 0;         // taken below the settings' min_clock_ratio of expected_sm_mhz
  bool throttled = false;            // clean samples could not be had: the timing includes throttled ones

  // The board held its clocks down to stay under its power limit (NVML's sw_power_cap or a power brake) during
  // some kept sample: the sustained state of a heavy kernel, and a production workload's.
  bool power_capped() const;
  // "SM 1755-1815 MHz, at its power cap": the clock state a time was taken in.
  std::string state_text() const;

  // None when READINGS is empty.
  static std::optional<ClockRecord> of(const std::vector<ClockReading>& readings);
  nlohmann::json to_json() const;
  static ClockRecord from_json(const nlohmann::json& j);
};

}  // namespace attn

#include "tuner/record/clock_record.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "tuner/record/stats.hpp"

namespace attn {
namespace {

// The min and median of one optional field over the readings that have it.
template <class Get>
std::vector<double> present(const std::vector<ClockReading>& readings, Get get) {
  std::vector<double> v;
  for (const auto& r : readings)
    if (const std::optional<double> x = get(r)) v.push_back(*x);
  return v;
}

void put(nlohmann::json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

std::optional<double> get(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return std::nullopt;
  return j.at(key).get<double>();
}

}  // namespace

std::optional<ClockRecord> ClockRecord::of(const std::vector<ClockReading>& readings) {
  if (readings.empty()) return std::nullopt;
  ClockRecord c;
  std::vector<double> sm;
  for (const auto& r : readings) sm.push_back(r.sm_mhz);
  c.sm_mhz_min = *std::min_element(sm.begin(), sm.end());
  c.sm_mhz_median = median(sm);
  c.sm_mhz_max = *std::max_element(sm.begin(), sm.end());
  c.expected_sm_mhz = readings.front().expected_sm_mhz;
  if (auto mem = present(readings, [](const ClockReading& r) { return r.mem_mhz; }); !mem.empty()) {
    c.mem_mhz_min = *std::min_element(mem.begin(), mem.end());
    c.mem_mhz_median = median(mem);
  }
  if (auto w = present(readings, [](const ClockReading& r) { return r.power_w; }); !w.empty()) {
    c.power_w_median = median(w);
    c.power_w_max = *std::max_element(w.begin(), w.end());
  }
  if (auto t = present(readings, [](const ClockReading& r) { return r.temperature_c; }); !t.empty())
    c.temperature_c_max = *std::max_element(t.begin(), t.end());
  std::set<std::string> reasons;
  for (const auto& r : readings)
    if (r.reasons)
      for (const auto& name : *r.reasons)
        if (name != "gpu_idle") reasons.insert(name);
  c.reasons.assign(reasons.begin(), reasons.end());
  return c;
}

bool ClockRecord::power_capped() const {
  return std::any_of(reasons.begin(), reasons.end(),
                     [](const std::string& r) { return r == "sw_power_cap" || r == "hw_power_brake_slowdown"; });
}

std::string ClockRecord::state_text() const {
  const std::string band = sm_mhz_max > sm_mhz_min ? fmt::format("SM {:.0f}-{:.0f} MHz", sm_mhz_min, sm_mhz_max)
                                                   : fmt::format("SM {:.0f} MHz", sm_mhz_min);
  return band + (power_capped() ? ", at its power cap" : ", under its power cap");
}

// Hand-written: absent readings are left out (not null), power_capped is derived, and files from before
// sm_mhz_max read the median.
nlohmann::json ClockRecord::to_json() const {
  nlohmann::json j = {
      {"sm_mhz_min", sm_mhz_min}, {"sm_mhz_median", sm_mhz_median},         {"expected_sm_mhz", expected_sm_mhz},
      {"reasons", reasons},       {"discarded_samples", discarded_samples}, {"throttled", throttled}};
  j["sm_mhz_max"] = sm_mhz_max;
  j["power_capped"] = power_capped();
  put(j, "mem_mhz_min", mem_mhz_min);
  put(j, "mem_mhz_median", mem_mhz_median);
  put(j, "power_w_median", power_w_median);
  put(j, "power_w_max", power_w_max);
  put(j, "temperature_c_max", temperature_c_max);
  return j;
}

ClockRecord ClockRecord::from_json(const nlohmann::json& j) {
  ClockRecord c;
  c.sm_mhz_min = j.value("sm_mhz_min", 0.0);
  c.sm_mhz_median = j.value("sm_mhz_median", 0.0);
  c.sm_mhz_max = j.value("sm_mhz_max", c.sm_mhz_median);
  c.expected_sm_mhz = j.value("expected_sm_mhz", 0.0);
  c.mem_mhz_min = get(j, "mem_mhz_min");
  c.mem_mhz_median = get(j, "mem_mhz_median");
  c.power_w_median = get(j, "power_w_median");
  c.power_w_max = get(j, "power_w_max");
  c.temperature_c_max = get(j, "temperature_c_max");
  c.reasons = j.value("reasons", std::vector<std::string>{});
  c.discarded_samples = j.value("discarded_samples", 0);
  c.throttled = j.value("throttled", false);
  return c;
}

}  // namespace attn

#include "tuner/device/device.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tuner/core/error.hpp"

namespace attn {

// Hand-written: the CUDA-only fields are left out when 0, as journal headers (compared field by field on
// --resume) and leaderboards have always had them.
nlohmann::json DeviceInfo::to_json() const {
  nlohmann::json j = {{"id", id},
                      {"backend", backend},
                      {"name", name},
                      {"vendor", vendor},
                      {"platform", platform},
                      {"kind", kind},
                      {"driver_version", driver_version},
                      {"arch", arch},
                      {"compute_units", compute_units},
                      {"clock_mhz", clock_mhz},
                      {"global_mem_bytes", global_mem_bytes},
                      {"local_mem_bytes", local_mem_bytes},
                      {"cache_bytes", cache_bytes},
                      {"max_work_group_size", max_work_group_size}};
  if (registers_per_sm) j["registers_per_sm"] = registers_per_sm;
  if (max_threads_per_sm) j["max_threads_per_sm"] = max_threads_per_sm;
  if (shared_mem_per_sm) j["shared_mem_per_sm"] = shared_mem_per_sm;
  if (can_capture) j["can_capture"] = true;
  return j;
}

DeviceInfo DeviceInfo::from_json(const nlohmann::json& d) {
  DeviceInfo info;
  info.id = d.value("id", "");
  info.backend = d.value("backend", "");
  info.name = d.value("name", "");
  info.vendor = d.value("vendor", "");
  info.platform = d.value("platform", "");
  info.kind = d.value("kind", "");
  info.driver_version = d.value("driver_version", "");
  info.arch = d.value("arch", "");
  info.compute_units = d.value("compute_units", 0);
  info.clock_mhz = d.value("clock_mhz", 0);
  info.global_mem_bytes = d.value("global_mem_bytes", std::uint64_t{0});
  info.local_mem_bytes = d.value("local_mem_bytes", std::uint64_t{0});
  info.cache_bytes = d.value("cache_bytes", std::uint64_t{0});
  info.max_work_group_size = d.value("max_work_group_size", std::uint64_t{0});
  info.registers_per_sm = d.value("registers_per_sm", 0);
  info.max_threads_per_sm = d.value("max_threads_per_sm", 0);
  info.shared_mem_per_sm = d.value("shared_mem_per_sm", std::uint64_t{0});
  info.can_capture = d.value("can_capture", false);
  return info;
}

namespace {

// KernelResources' optional fields, each named once for the writer and the reader. Hand-written, not a macro:
// nlohmann's macros (3.11) cannot leave an empty optional out.
template <class Resources, class Visit>
void optional_fields(Resources& r, Visit&& visit) {
  visit("registers", r.registers);
  visit("private_mem_bytes", r.private_mem_bytes);
  visit("spill_store_bytes", r.spill_store_bytes);
  visit("spill_load_bytes", r.spill_load_bytes);
  visit("static_local_bytes", r.static_local_bytes);
  visit("max_work_group_size", r.max_work_group_size);
  visit("theoretical_occupancy", r.theoretical_occupancy);
  visit("driver_occupancy", r.driver_occupancy);
  visit("occupancy_limited_by", r.occupancy_limited_by);
  visit("symbol", r.symbol);
}

}  // namespace

nlohmann::json KernelResources::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  optional_fields(*this, [&](const char* key, const auto& v) {
    if (v) j[key] = *v;
  });
  if (!compiler_notes.empty()) j["compiler_notes"] = compiler_notes;
  return j;
}

KernelResources KernelResources::from_json(const nlohmann::json& j) {
  KernelResources r;
  optional_fields(r, [&](const char* key, auto& v) {
    if (j.contains(key)) v = j.at(key).get<typename std::remove_reference_t<decltype(v)>::value_type>();
  });
  r.compiler_notes = j.value("compiler_notes", std::vector<std::string>{});
  return r;
}

std::unique_ptr<CapturedRun> Device::capture(const Program&, const std::vector<Launch>&, const LaunchArguments&) {
  throw UsageError(fmt::format("--timing graph needs CUDA graphs; device {} is an {} device (use --timing cold or warm)",
                               info().id, info().backend));
}

}  // namespace attn

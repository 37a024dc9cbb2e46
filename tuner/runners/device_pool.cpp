#include "tuner/runners/device_pool.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"

namespace attn {

std::vector<DeviceInfo> resolve_devices(const std::string& text, const std::vector<std::string>& backends,
                                        std::optional<int> local_rank) {
  const DeviceListing listing = list_devices();
  auto info_of = [&](const std::string& id) {
    const std::string known = require_device(id);  // throws, listing what exists
    return *std::find_if(listing.devices.begin(), listing.devices.end(), [&](const DeviceInfo& d) { return d.id == known; });
  };
  std::vector<DeviceInfo> out;
  if (text.empty()) {
    const DeviceInfo best = info_of(best_device_id(backends));
    if (!local_rank) return {best};
    std::vector<DeviceInfo> same_kind;
    for (const auto& d : listing.devices)
      if (d.backend == best.backend && d.kind == best.kind) same_kind.push_back(d);
    if (*local_rank >= static_cast<int>(same_kind.size()))
      throw UsageError(fmt::format("local rank {} but only {} {} {} device(s) here: pass --device", *local_rank,
                                   same_kind.size(), best.backend, best.kind));
    return {same_kind[static_cast<std::size_t>(*local_rank)]};
  }
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    std::vector<DeviceInfo> items;
    if (item.size() > 4 && item.ends_with(":all")) {
      const std::string backend = item.substr(0, item.size() - 4);
      for (const auto& d : listing.devices)
        if (d.backend == backend) items.push_back(d);
      if (items.empty()) throw UsageError(fmt::format("--device {}: no {} device here", item, backend));
    } else {
      items.push_back(info_of(item));
    }
    for (auto& d : items) {
      if (!seen.insert(d.id).second) throw UsageError(fmt::format("--device {}: {} is named twice", text, d.id));
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<DeviceGroup> group_by_model(const std::vector<DeviceInfo>& devices) {
  std::vector<DeviceGroup> groups;
  for (const auto& d : devices) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const DeviceGroup& g) { return g.model == d.name; });
    if (it == groups.end()) it = groups.insert(groups.end(), DeviceGroup{d.name, {}});
    it->ids.push_back(d.id);
  }
  return groups;
}

void require_pool_runs(const std::vector<std::string>& device_ids, const RunSettings& settings) {
  if (device_ids.size() > 1 && !settings.isolate)
    throw UsageError("--no-isolate runs on one device: several devices each need their own worker process");
}

DevicePool::DevicePool(const Spec& spec, const std::vector<std::string>& device_ids, const RunSettings& settings,
                       const std::string& shape_selection)
    : ids_(device_ids) {
  if (ids_.empty()) throw Error("a device pool needs a device");
  require_pool_runs(ids_, settings);
  for (const auto& id : ids_)
    runners_.push_back(settings.isolate ? make_worker_runner(spec, id, settings, shape_selection)
                                        : make_in_process_runner(spec, id, settings));
}

DevicePool::DevicePool(std::vector<std::string> device_ids, std::vector<std::unique_ptr<ConfigRunner>> runners)
    : ids_(std::move(device_ids)), runners_(std::move(runners)) {
  if (ids_.empty() || ids_.size() != runners_.size()) throw Error("a device pool needs one runner per device");
}

void DevicePool::run(const std::vector<Job>& jobs, const Callbacks& callbacks, const volatile std::sig_atomic_t& stop,
                     const std::optional<MeasureStep>& step) {
  // One device compiles a shape's configurations ahead; several compile each
  // one when they take it, so that none compiles what another runs.
  if (runners_.size() == 1) runners_.front()->expect(jobs);

  std::mutex mutex;
  std::deque<Job> queue(jobs.begin(), jobs.end());
  std::exception_ptr error;
  bool halted = false;  // `finished` said stop
  auto lane = [&](std::size_t i) {
    ConfigRunner& runner = *runners_[i];
    for (;;) {
      Job job;
      {
        std::lock_guard lock(mutex);
        if (stop || halted || queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
        callbacks.starting(job);
      }
      try {
        ConfigResult result = runner.run(job, step);
        if (runners_.size() > 1) result.device = ids_[i];
        std::lock_guard lock(mutex);
        if (stop) return;
        if (!callbacks.finished(std::move(result))) halted = true;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        queue.push_front(std::move(job));  // not measured: another device takes it
        if (!error) error = std::current_exception();
        if (runners_.size() > 1) spdlog::error("device {} stopped: {}", ids_[i], e.what());
        return;
      }
    }
  };
  if (runners_.size() == 1) {
    lane(0);
  } else {
    std::vector<std::jthread> lanes;
    for (std::size_t i = 0; i < runners_.size(); ++i) lanes.emplace_back(lane, i);
  }
  if (error && !queue.empty() && !stop) std::rethrow_exception(error);
}

}  // namespace attn

#include "tuner/backend/registry.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/backend/opencl/opencl_arch.hpp"
#include "tuner/backend/opencl/opencl_device.hpp"
#include "tuner/core/error.hpp"
#ifdef ATTN_TUNE_WITH_CUDA
#include "tuner/backend/cuda/cuda_device.hpp"
#endif

namespace attn {
namespace {

std::vector<int> parse_indices(const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    int value = -1;
    const auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end) return {};
    out.push_back(value);
    start = end + 1;
  }
  return out;
}

std::string known_devices() {
  const DeviceListing listing = list_devices();
  std::string s;
  for (const auto& d : listing.devices) s += fmt::format("\n  {}  {} ({})", d.id, d.name, d.platform);
  for (const auto& n : listing.notes) s += fmt::format("\n  note: {}", n);
  return s.empty() ? " none" : s;
}

int rank(const DeviceInfo& d) {
  const int kind = d.kind == "gpu" ? 0 : d.kind == "accelerator" ? 1 : 2;
  return kind * 2 + (d.backend == "cuda" ? 0 : 1);
}

}  // namespace

DeviceListing list_devices() {
  DeviceListing listing;
#ifdef ATTN_TUNE_WITH_CUDA
  for (auto& d : list_cuda_devices(listing.notes)) listing.devices.push_back(std::move(d));
#else
  listing.notes.push_back("cuda: this attn-tune was built without the CUDA backend (no CUDA toolkit at build time)");
#endif
  for (auto& d : list_opencl_devices(listing.notes)) listing.devices.push_back(std::move(d));
  return listing;
}

std::unique_ptr<Device> open_device(const std::string& id) {
  const auto colon = id.find(':');
  const std::string backend = id.substr(0, colon);
  const std::vector<int> idx = colon == std::string::npos ? std::vector<int>{} : parse_indices(id.substr(colon + 1));
  try {
    if (backend == "opencl" && idx.size() == 2) return open_opencl_device(idx[0], idx[1]);
#ifdef ATTN_TUNE_WITH_CUDA
    if (backend == "cuda" && idx.size() == 1) return open_cuda_device(idx[0]);
#endif
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}; devices found:{}", e.what(), known_devices()));
  }
  throw UsageError(
      fmt::format("no device '{}' (ids look like opencl:0:0 or cuda:0); devices found:{}", id, known_devices()));
}

std::string architecture_key(const DeviceInfo& device) {
  if (device.backend == "opencl") return opencl_architecture_key(device);
  return device.arch;
}

DeviceInfo find_device(const std::string& id) {
  const DeviceListing listing = list_devices();
  for (const auto& d : listing.devices)
    if (d.id == id) return d;
  throw UsageError(fmt::format("no device '{}'; devices found:{}", id, known_devices()));
}

std::string require_device(const std::string& id) { return find_device(id).id; }

std::string best_device_id(const std::vector<std::string>& backends) {
  DeviceListing listing = list_devices();
  std::erase_if(listing.devices, [&](const DeviceInfo& d) {
    return std::find(backends.begin(), backends.end(), d.backend) == backends.end();
  });
  if (listing.devices.empty())
    throw UsageError(
        fmt::format("no device for the spec's backends ({}); devices found:{}", fmt::join(backends, ", "), known_devices()));
  std::stable_sort(listing.devices.begin(), listing.devices.end(),
                   [](const DeviceInfo& a, const DeviceInfo& b) { return rank(a) < rank(b); });
  return listing.devices.front().id;
}

}  // namespace attn

#include "tuner/export/recorded_spec_measurer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/spec/shape_selection.hpp"
#include "tuner/spec/spec_loader.hpp"

namespace attn {

namespace fs = std::filesystem;

fs::path find_recorded_spec(const Leaderboard& lb) {
  const fs::path recorded = lb.spec_path;
  if (recorded.empty()) throw UsageError(fmt::format("{}: records no spec path: pass --spec", lb.file.string()));
  if (fs::exists(recorded)) return recorded;
  for (fs::path dir = fs::absolute(lb.file).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / recorded)) return dir / recorded;
    if (dir == dir.root_path()) break;
  }
  throw UsageError(fmt::format("{}: its spec '{}' is not found from here nor above the leaderboard: pass --spec",
                               lb.file.string(), recorded.string()));
}

std::vector<std::string> code_differences(const Spec& spec, const Leaderboard& lb) {
  std::vector<std::string> diffs;
  if (spec.sha256 != lb.spec_sha256) diffs.push_back(fmt::format("spec {} (sha256 {} on disk)", spec.path.string(), spec.sha256));
  for (const auto& recorded : lb.sources) {
    const auto it = spec.sources.find(recorded.backend);
    const std::string now = it == spec.sources.end() ? "none" : sha256_file(it->second);
    if (now != recorded.sha256) diffs.push_back(fmt::format("{} source {} (sha256 {} on disk)", recorded.backend, recorded.path, now));
  }
  return diffs;
}

RecordedSpecMeasurer::RecordedSpecMeasurer(const fs::path& spec_path, const Leaderboard& recorded, const std::string& device_id)
    : spec_(std::make_unique<Spec>(load_spec(spec_path))) {
  select_shapes(*spec_, recorded.shape_filter);
  RunSettings settings = recorded.settings;
  settings.isolate = true;  // a crash is a result, not the end of the gate
  runner_ = make_worker_runner(*spec_, require_device(device_id), settings, recorded.shape_filter);
}

ConfigResult RecordedSpecMeasurer::measure(const Job& job) {
  const bool has_it = std::any_of(spec_->kernels.begin(), spec_->kernels.end(), [&](const KernelSpec& k) {
    return k.name == job.kernel && std::find(k.shapes.begin(), k.shapes.end(), job.shape) != k.shapes.end();
  });
  if (has_it) return runner_->run(job);
  ConfigResult r;
  r.job = job;
  r.status = Status::skipped;
  r.reason = fmt::format("the spec {} has no kernel '{}' on shape '{}' any more", spec_->path.string(), job.kernel, job.shape);
  return r;
}

}  // namespace attn

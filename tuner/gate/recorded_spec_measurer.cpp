#include "tuner/gate/recorded_spec_measurer.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/plan/run_resolver.hpp"

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
  if (spec.sha256 != lb.spec_sha256)
    diffs.push_back(fmt::format("spec {} (sha256 {} on disk)", spec.path.string(), spec.sha256));
  for (const auto& recorded : lb.sources) {
    const auto it = spec.sources.find(recorded.backend);
    if (it == spec.sources.end()) {
      diffs.push_back(fmt::format("{} source {} (none in the spec on disk)", recorded.backend, recorded.path));
      continue;
    }
    if (recorded.files.empty()) {  // an older leaderboard: the source's own bytes only
      const std::string now = sha256_file(it->second);
      if (now != recorded.sha256)
        diffs.push_back(fmt::format("{} source {} (sha256 {} on disk)", recorded.backend, recorded.path, now));
      continue;
    }
    const SourceIdentity now = source_identity(it->second, spec.include_dirs);
    if (now.sha256 == recorded.sha256) continue;
    // Name the files that changed, appeared or went away, each by its path
    // relative to its source (the sweep and the gate may run from different places).
    auto relative = [](const fs::path& file, const fs::path& source) {
      return file.lexically_relative(source.parent_path()).generic_string();
    };
    std::map<std::string, std::string> then;
    for (const auto& f : recorded.files) then[relative(f.path, recorded.path)] = f.sha256;
    const std::size_t before = diffs.size();
    for (const auto& f : now.files) {
      const auto was = then.find(relative(f.path, it->second));
      if (was == then.end())
        diffs.push_back(fmt::format("{} source {}: {} is now included (sha256 {})", recorded.backend, recorded.path,
                                    f.path.string(), f.sha256));
      else if (was->second != f.sha256)
        diffs.push_back(
            fmt::format("{} source {}: {} (sha256 {} on disk)", recorded.backend, recorded.path, f.path.string(), f.sha256));
      if (was != then.end()) then.erase(was);
    }
    for (const auto& [path, sha] : then)
      diffs.push_back(fmt::format("{} source {}: {} is no longer included", recorded.backend, recorded.path, path));
    if (diffs.size() == before)  // the same files in another order
      diffs.push_back(fmt::format("{} source {} (sha256 {} on disk)", recorded.backend, recorded.path, now.sha256));
  }
  return diffs;
}

RecordedSpecMeasurer::RecordedSpecMeasurer(const fs::path& spec_path, const Leaderboard& recorded,
                                           const std::string& device_id) {
  ResolvedRun run = resolve_run({spec_path, recorded.shape_filter, {}}, device_id);
  spec_ = std::make_unique<Spec>(std::move(run.spec));
  RunSettings settings = recorded.settings;
  settings.isolate = true;  // a crash is a result, not the end of the gate
  // The gate measures every configuration it holds against the baseline in full, whatever the sweep's stages.
  settings.measure.mode = MeasureMode::thorough;
  runner_ = make_worker_runner(*spec_, run.device_id, settings, recorded.shape_filter);
}

ConfigResult RecordedSpecMeasurer::measure(const Job& job) {
  const bool has_it = std::any_of(spec_->kernels.begin(), spec_->kernels.end(), [&](const KernelSpec& k) {
    return k.name == job.kernel && std::find(k.shapes.begin(), k.shapes.end(), job.shape) != k.shapes.end();
  });
  if (has_it) return runner_->run(job);
  ConfigResult r;
  r.job = job;
  r.status = Status::skipped;
  r.reason =
      fmt::format("the spec {} has no kernel '{}' on shape '{}' any more", spec_->path.string(), job.kernel, job.shape);
  return r;
}

}  // namespace attn

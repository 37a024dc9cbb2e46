#include "tuner/sweep/compile_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/backend/registry.hpp"
#include "tuner/cache/cache_entry.hpp"
#include "tuner/core/compiler_log.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/parallel_for.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/device/offline_compiler.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/plan/run_plan.hpp"

namespace attn {
namespace {

struct Compilation {
  CompileRequest request;
  std::shared_ptr<const Program> program;
  std::string error, log;
  bool from_cache = false;       // answered by CompileCache (this process)
  bool from_disk_cache = false;  // answered by the on-disk compile cache
};

}  // namespace

std::string CompileCache::key(const CompileRequest& r) {
  std::string k = r.arch + "\n" + std::to_string(std::hash<std::string>{}(r.source_text)) + "\n" + r.source_path.string();
  for (const auto& d : r.defines) k += fmt::format("\n-D{}={}", d.name, d.value);
  for (const auto& i : r.include_dirs) k += "\n-I" + i.string();
  for (const auto& o : r.extra_options) k += "\n" + o;
  for (const auto& e : r.entries) k += "\nentry " + e;
  return k;
}

const CompileCache::Entry* CompileCache::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void CompileCache::put(const std::string& key, Entry entry) { entries_[key] = std::move(entry); }

// Write-only, each field named once: the job is flattened in and empty fields are left out.
nlohmann::json CompiledConfig::to_json() const {
  nlohmann::json j = job.to_json();
  j["key"] = config_key(job.config);
  j["status"] = status_name(status);
  if (!reason.empty()) j["reason"] = reason;
  if (!log.empty()) j["log"] = log;
  j["defines"] = defines;
  j["compile_ms"] = compile_ms;
  j["cached"] = cached;
  if (from_disk_cache) j["from_disk_cache"] = true;
  nlohmann::json res = nlohmann::json::object();
  for (const auto& [entry, r] : resources) res[entry] = r.to_json();
  j["resources"] = res;
  return j;
}

bool CompiledConfig::spills() const {
  for (const auto& [_, r] : resources)
    if (r.spill_store_bytes.value_or(0) > 0 || r.spill_load_bytes.value_or(0) > 0) return true;
  return false;
}

std::string CompiledConfig::first_compiler_note() const {
  for (const auto& [_, r] : resources)
    if (!r.compiler_notes.empty()) return r.compiler_notes.front();
  return {};
}

int CompileReport::count(Status s) const {
  int n = 0;
  for (const auto& c : configs) n += c.status == s;
  return n;
}

// Write-only, each field named once (`compile --json`); nothing reads it back.
nlohmann::json CompileReport::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : configs) list.push_back(c.to_json());
  nlohmann::json excluded = nlohmann::json::array();
  for (const auto& x : exclusions) excluded.push_back({{"kernel", x.kernel}, {"shape", x.shape}, {"reason", x.reason}});
  return {{"backend", backend},       {"arch", arch},    {"extra_options", extra_options}, {"compiles", compiles},
          {"cache_hits", cache_hits}, {"configs", list}, {"exclusions", excluded}};
}

CompileReport compile_spec(const Spec& spec, const CompileOptions& options, CompileCache* cache) {
  CompileReport report;
  report.extra_options = options.extra_options;
  std::unique_ptr<Device> device;
  const OfflineCompiler* offline = nullptr;  // without --device
  if (!options.device_id.empty()) {
    device = open_device(require_device(options.device_id));
    report.backend = device->info().backend;
    report.arch = device->info().arch;
  } else {
    offline = &offline_compiler();
    report.backend = offline->backend();
    report.arch = spec.cuda_arch.empty() ? options.arch : spec.cuda_arch;
  }
  if (!spec.sources.contains(report.backend))
    throw UsageError(
        fmt::format("{} has no {} source{}", spec.path.string(), report.backend,
                    options.device_id.empty() ? " (without --device, compile targets CUDA through NVRTC)" : ""));
  const std::string source_text = read_text_file(spec.sources.at(report.backend));

  // Plan every (shape, kernel, configuration); compile each distinct -D set once.
  std::map<std::string, Compilation> compilations;        // by kernel name + defines
  std::vector<std::pair<std::string, LaunchPlan>> plans;  // compilation key, plan; parallel to report.configs
  RunPlan run_plan(spec, report.backend);
  for (PlannedJob planned; run_plan.next(planned);) {
    CompiledConfig c;
    c.job = planned.job;
    LaunchPlan plan;
    try {
      if (!planned.skip_reason.empty()) throw Outcome{Status::skipped, planned.skip_reason, {}};
      plan = plan_launches(*planned.kernel, planned.job.config, *planned.shape_variables);
    } catch (const Outcome& o) {
      c.status = o.status;
      c.reason = o.reason;
      report.configs.push_back(std::move(c));
      plans.emplace_back("", LaunchPlan{});
      continue;
    }
    c.defines = defines_string(plan.defines);
    const std::string key = planned.kernel->name + "|" + program_key(plan.defines, plan.entries);
    if (!compilations.contains(key)) {
      CompileRequest& r = compilations[key].request;
      r.source_path = spec.sources.at(report.backend);
      r.source_text = source_text;
      r.include_dirs = spec.include_dirs;
      r.include_dirs.push_back(r.source_path.parent_path());
      r.defines = plan.defines;
      r.entries = plan.entries;
      if (spec.compiler_options.contains(report.backend)) r.extra_options = spec.compiler_options.at(report.backend);
      r.extra_options.insert(r.extra_options.end(), options.extra_options.begin(), options.extra_options.end());
      r.arch = device ? spec.cuda_arch : report.arch;
      r.cuda_compiler = spec.cuda_compiler;
    } else {
      c.cached = true;
    }
    report.configs.push_back(std::move(c));
    plans.emplace_back(key, std::move(plan));
  }
  report.kernels_not_on_backend = run_plan.kernels_not_on_backend();
  report.exclusions = run_plan.exclusions();

  // Compile each distinct request once.
  std::vector<Compilation*> work;
  for (auto& [_, c] : compilations) {
    if (cache && !device) {
      if (const CompileCache::Entry* hit = cache->find(CompileCache::key(c.request))) {
        c.program = hit->program;
        c.error = hit->error;
        c.log = hit->log;
        c.from_cache = true;
        continue;
      }
    }
    work.push_back(&c);
  }
  auto compile_one = [&](Compilation& c) {
    try {
      c.program = device ? device->compile(c.request) : offline->compile(c.request);
      c.from_disk_cache = c.program->from_cache();
    } catch (const CompileError& e) {
      c.from_disk_cache = dynamic_cast<const CachedCompileError*>(&e) != nullptr;
      const std::string line = first_error_line(e.log());
      c.error = line.empty() ? e.what() : line;
      c.log = e.log();
    }
  };
  // NVRTC is thread-safe; a device compiles one at a time.
  parallel_for(
      work.size(), [&](std::size_t i) { compile_one(*work[i]); },
      device ? 1 : static_cast<std::size_t>(std::max(1, options.jobs)));
  report.compiles = static_cast<int>(work.size());
  for (const Compilation* c : work) report.cache_hits += c->from_disk_cache;
  if (cache && !device)
    for (const Compilation* c : work) cache->put(CompileCache::key(c->request), {c->program, c->error, c->log});

  for (std::size_t i = 0; i < report.configs.size(); ++i) {
    CompiledConfig& c = report.configs[i];
    if (plans[i].first.empty()) continue;
    const Compilation& comp = compilations.at(plans[i].first);
    c.cached = c.cached || comp.from_cache;
    c.from_disk_cache = comp.from_disk_cache;
    if (!comp.program) {
      c.status = Status::compile_failed;
      c.reason = comp.error;
      c.log = comp.log;
      continue;
    }
    c.compile_ms = comp.program->compile_ms();
    for (const auto& entry : plans[i].second.entries) c.resources[entry] = comp.program->resources(entry);
    for (const auto& launch : plans[i].second.launches) {
      KernelResources& r = c.resources[launch.entry];
      if (device) device->describe_launch(*comp.program, launch, r);
      else offline->describe_launch(report.arch, launch, r);
    }
  }
  return report;
}

}  // namespace attn

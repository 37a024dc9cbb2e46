#include "tuner/measure/evaluator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <new>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/cache/cache_entry.hpp"
#include "tuner/cache/reference_store.hpp"
#include "tuner/core/compiler_log.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/host_allocation.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/measure/kept_reference.hpp"
#include "tuner/measure/sampler.hpp"
#include "tuner/plan/signature_check.hpp"
#include "tuner/plan/tensor_map_arguments.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

constexpr std::size_t kMaxLog = 64 * 1024;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string trimmed_log(const std::string& log) {
  return log.size() <= kMaxLog ? log : log.substr(0, kMaxLog) + "\n[log truncated]";
}

}  // namespace

Evaluator::Evaluator(const Spec& spec, Device& device, RunSettings settings)
    : spec_(spec), device_(device), settings_(std::move(settings)), backend_(device.info().backend) {
  if (!spec_.sources.contains(backend_))
    throw UsageError(fmt::format("{} has no {} kernel source, and device {} is an {} device", spec_.path.string(), backend_,
                                 device.info().id, backend_));
  source_text_ = read_text_file(spec_.sources.at(backend_));
  require_timing_policy_runs_on(settings_.timing, device.info());
}

PreparedShape Evaluator::prepare_fields(const std::string& name, const nlohmann::json& fields) {
  const Operation& op = spec_operation(spec_);
  PreparedShape p;
  p.name = name;
  p.fields = fields;
  p.variables = with_compute_units(op.variables(fields), device_.info().compute_units);
  p.numbers = op.number_variables(fields);
  p.problem = op.make_problem(fields, settings_.seed);
  for (const auto& hb : p.problem->buffers()) {
    auto buffer = device_.allocate(hb.data.size());
    std::vector<std::byte> poison;
    if (hb.is_output && !hb.poison.empty()) {
      poison.resize(hb.data.size());
      for (std::size_t i = 0; i < poison.size(); i += hb.poison.size())
        std::memcpy(poison.data() + i, hb.poison.data(), std::min(hb.poison.size(), poison.size() - i));
    } else {
      device_.write(*buffer, hb.data.data(), hb.data.size());
    }
    p.buffers.push_back(std::move(buffer));
    p.poisoned.push_back(std::move(poison));
  }
  if (const auto reference = op.device_reference()) run_reference(*reference, p);
  return p;
}

// The reference kernel's preset, else its baseline, else its first configuration on the shape.
void Evaluator::run_reference(const DeviceReference& reference, PreparedShape& shape) {
  const KernelSpec& kernel = spec_.kernel(reference.kernel);
  const std::string label = reference.preset.empty() ? kernel.baseline : reference.preset;
  Config config;
  if (!label.empty()) {
    for (const auto& [name, preset] : kernel.presets)
      if (name == label) config = preset;
  } else {
    PlannedConfig first;
    if (!SpaceCursor(kernel, shape.variables).next(first))
      throw Outcome{Status::skipped,
                    fmt::format("reference kernel '{}' has no configuration on this shape", kernel.name),
                    {}};
    config = first.config;
  }
  ConfigResult scratch;  // make_plan records into it: not the job's
  try {
    const Plan plan = make_plan(kernel, config, shape, scratch);
    shape.problem->set_reference_outputs(run_once(plan, shape));
  } catch (const Outcome& o) {
    throw Outcome{o.status, fmt::format("reference kernel '{}' ({}): {}", kernel.name, config_key(config), o.reason), o.log};
  }
}

void Evaluator::prepare(const std::string& shape) {
  if (prepared_ && prepared_->name == shape) return;
  prepared_.reset();  // free the previous shape's device memory first
  const Shape& s = spec_.shape(shape);
  try {
    auto p = std::make_unique<PreparedShape>(prepare_fields(s.name, s.fields));
    // Kept beside the compiled kernels, in at most a quarter of their bound.
    const CompileCacheSettings& cache = settings_.compile_cache;
    const ReferenceStore references(cache.enabled ? cache.resolved_dir() : std::filesystem::path(),
                                    cache.max_mb * 1024 * 1024 / 4);
    prepare_reference(*p->problem, spec_operation(spec_).name(), s.fields, settings_.seed, spec_.tolerance, references);
    prepared_ = std::move(p);
  } catch (const std::bad_alloc&) {
    // Not the kernel's fault: every configuration of this shape gets the status.
    const std::size_t bytes = last_failed_allocation_bytes();
    throw Outcome{Status::host_oom,
                  fmt::format("the host could not allocate {} for shape '{}' (its inputs, outputs and CPU reference)",
                              bytes > 0 ? fmt::format("{:.3g} GiB", bytes / 1073741824.0) : std::string("memory"), shape),
                  {}};
  }
}

CompileRequest Evaluator::compile_request(const std::vector<Define>& defines,
                                          const std::vector<std::string>& entries) const {
  CompileRequest request;
  request.source_path = spec_.sources.at(backend_);
  request.source_text = source_text_;
  request.include_dirs = spec_.include_dirs;
  request.include_dirs.push_back(request.source_path.parent_path());
  request.defines = defines;
  request.entries = entries;
  if (spec_.compiler_options.contains(backend_)) request.extra_options = spec_.compiler_options.at(backend_);
  request.arch = spec_.cuda_arch;
  request.cuda_compiler = spec_.cuda_compiler;
  return request;
}

void Evaluator::precompile(const std::vector<Job>& jobs) {
  if (!prepared_) return;
  std::vector<CompileRequest> requests;
  std::set<std::string> seen;
  for (const auto& job : jobs) {
    if (job.shape != prepared_->name) continue;
    try {
      const LaunchPlan lp = plan_launches(spec_.kernel(job.kernel), job.config, prepared_->variables);
      const std::string key = program_key(lp.defines, lp.entries);
      if (programs_.contains(key) || !seen.insert(key).second) continue;
      requests.push_back(compile_request(lp.defines, lp.entries));
    } catch (const Outcome&) {
      // skipped configurations are reported by evaluate()
    }
  }
  if (!requests.empty()) device_.precompile(requests);
}

const Program& Evaluator::compiled(const std::vector<Define>& defines, const std::vector<std::string>& entries,
                                   ConfigResult& result) {
  const std::string key = program_key(defines, entries);
  auto it = programs_.find(key);
  if (it == programs_.end()) {
    try {
      it = programs_.emplace(key, device_.compile(compile_request(defines, entries))).first;
    } catch (const CompileError& e) {
      result.compile_cached = dynamic_cast<const CachedCompileError*>(&e) != nullptr;
      const std::string line = first_error_line(e.log());
      throw Outcome{Status::compile_failed, line.empty() ? e.what() : line, trimmed_log(e.log())};
    }
  }
  result.compile_ms = it->second->compile_ms();
  result.compile_cached = it->second->from_cache();
  if (!it->second->build_log().empty()) result.log = trimmed_log(it->second->build_log());
  return *it->second;
}

Plan Evaluator::make_plan(const KernelSpec& kernel, const Config& config, const PreparedShape& shape, ConfigResult& result) {
  if (std::find(kernel.backends.begin(), kernel.backends.end(), backend_) == kernel.backends.end())
    throw Outcome{Status::skipped, fmt::format("kernel '{}' does not run on the {} backend", kernel.name, backend_), {}};
  const LaunchPlan lp = plan_launches(kernel, config, shape.variables);
  result.defines = defines_string(lp.defines);
  result.workspace_bytes = lp.workspace_bytes;
  result.launches = nlohmann::json::array();
  for (const auto& l : lp.launches) {
    result.launches.push_back(
        {{"entry", l.entry}, {"grid", l.grid}, {"block", l.block}, {"shared_bytes", l.dynamic_shared_bytes}});
    if (l.cluster != std::array<std::uint64_t, 3>{1, 1, 1}) result.launches.back()["cluster"] = l.cluster;
  }

  const DeviceInfo& dev = device_.info();
  for (const auto& launch : lp.launches) {
    const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (dev.max_work_group_size && threads > dev.max_work_group_size)
      throw Outcome{
          Status::skipped,
          fmt::format("{}: {} threads per block exceed the device's {}", launch.entry, threads, dev.max_work_group_size),
          {}};
    if (dev.local_mem_bytes && launch.dynamic_shared_bytes > dev.local_mem_bytes)
      throw Outcome{Status::skipped,
                    fmt::format("{}: {} bytes of shared memory exceed the device's {}", launch.entry,
                                launch.dynamic_shared_bytes, dev.local_mem_bytes),
                    {}};
  }

  Plan plan;
  plan.launches = lp.launches;
  plan.workspace_bytes = lp.workspace_bytes;
  plan.tensor_maps = lp.tensor_maps;
  plan.arguments = bind_launch_arguments(kernel, *shape.problem, config_bindings(shape.variables, config), shape.numbers);
  // A declared argument list is recorded with its values: a wrong stride shows in the result.
  if (kernel.declares_arguments())
    for (std::size_t l = 0; l < plan.arguments.size(); ++l)
      result.launches[l]["arguments"] = describe_arguments(plan.arguments[l]);
  plan.program = &compiled(lp.defines, lp.entries, result);
  for (const auto& entry : lp.entries) result.resources[entry] = plan.program->resources(entry);
  // The arguments against the compiled kernel's parameters, before the first run: a wrong count or size is
  // the spec's or the source's, the same in every configuration, so the sweep stops on it as on a broken source.
  for (std::size_t l = 0; l < plan.launches.size(); ++l)
    if (const auto parameters = device_.parameters(*plan.program, plan.launches[l].entry)) {
      const std::string mismatch =
          signature_mismatch(plan.launches[l].entry, *parameters, plan.arguments[l], plan.tensor_maps.size());
      if (!mismatch.empty()) {
        const std::string reason = fmt::format("{}: kernel '{}', launch {} of {}: {}", spec_.path.string(), kernel.name, l,
                                               plan.launches.size(), mismatch);
        throw Outcome{Status::compile_failed, reason, reason};
      }
    }
  for (const auto& launch : plan.launches) {
    auto& r = result.resources[launch.entry];
    const std::uint64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (r.max_work_group_size && threads > std::uint64_t(*r.max_work_group_size))
      throw Outcome{Status::skipped,
                    fmt::format("{}: compiled kernel allows {} threads per block, the launch asks {} "
                                "(registers / private memory)",
                                launch.entry, *r.max_work_group_size, threads),
                    {}};
    if (r.static_local_bytes && dev.local_mem_bytes &&
        std::uint64_t(*r.static_local_bytes) + launch.dynamic_shared_bytes > dev.local_mem_bytes)
      throw Outcome{Status::skipped,
                    fmt::format("{}: {} bytes of local/shared memory exceed the device's {}", launch.entry,
                                *r.static_local_bytes + launch.dynamic_shared_bytes, dev.local_mem_bytes),
                    {}};
    device_.describe_launch(*plan.program, launch, r);
  }
  return plan;
}

LaunchArguments Evaluator::launch_args(const Plan& plan, const PreparedShape& shape) {
  ensure_workspace(plan.workspace_bytes);
  const std::vector<KernelArg> maps =
      tensor_map_arguments(plan.tensor_maps, shape.problem->buffers(), shape.buffers, shape.fields);
  LaunchArguments out;
  for (const auto& arguments : plan.arguments) {
    std::vector<KernelArg> args = kernel_args(arguments, shape.buffers, *workspace_);
    args.insert(args.end(), maps.begin(), maps.end());  // TMA tensor maps follow each argument list
    out.push_back(std::move(args));
  }
  return out;
}

void Evaluator::ensure_workspace(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, kZeroedWorkspaceBytes);
  if (workspace_ && workspace_->size() >= bytes) return;
  workspace_.reset();
  workspace_ = device_.allocate(bytes);
  zero_workspace();
}

void Evaluator::restore(const PreparedShape& shape, BufferReset when) {
  const auto& host = shape.problem->buffers();
  for (std::size_t i = 0; i < host.size(); ++i)
    if (host[i].reset == when || (when == BufferReset::once && host[i].reset == BufferReset::every_run))
      device_.write(*shape.buffers[i], host[i].data.data(), host[i].data.size());
}

void Evaluator::zero_workspace() {
  const std::array<std::byte, kZeroedWorkspaceBytes> zeros{};
  device_.write(*workspace_, zeros.data(), zeros.size());
}

std::vector<std::vector<std::byte>> Evaluator::run_once(const Plan& plan, const PreparedShape& shape) {
  const auto& host = shape.problem->buffers();
  for (std::size_t i = 0; i < host.size(); ++i)
    if (!shape.poisoned[i].empty()) device_.write(*shape.buffers[i], shape.poisoned[i].data(), shape.poisoned[i].size());
  restore(shape, BufferReset::every_run);

  const LaunchArguments args = launch_args(plan, shape);
  try {
    device_.run(*plan.program, plan.launches, args);
  } catch (const LaunchError& e) {
    throw Outcome{Status::launch_failed, e.what(), {}};
  }

  std::vector<std::vector<std::byte>> outputs;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (!host[i].is_output) continue;
    outputs.emplace_back(host[i].data.size());
    device_.read(*shape.buffers[i], outputs.back().data(), outputs.back().size());
  }
  return outputs;
}

void Evaluator::time(const Plan& plan, const PreparedShape& shape, const MeasureStep& step, ConfigResult& result) {
  const LaunchArguments args = launch_args(plan, shape);

  const TimingSettings t = stage_timing(settings_.timing, settings_.measure, step);
  const bool warm_by_time = warm_up_by_time(settings_.measure, step, device_.info().kind == "gpu",
                                            last_timed_s_ < 0 ? -1.0 : now_s() - last_timed_s_, last_stage_);
  last_stage_ = step.stage;
  try {
    std::unique_ptr<CapturedRun> graph;
    if (t.policy == TimingPolicy::graph) graph = device_.capture(*plan.program, plan.launches, args);
    const bool restores = std::any_of(shape.problem->buffers().begin(), shape.problem->buffers().end(),
                                      [](const HostBuffer& b) { return b.reset == BufferReset::every_run; });
    auto sample = [&] {
      // State the kernel reads and writes starts from its declared values in every timed run too (the
      // writes are outside the device's events).
      if (restores) restore(shape, BufferReset::every_run);
      if (t.flush_cache()) device_.flush_cache();
      return graph ? graph->replay() : device_.run(*plan.program, plan.launches, args);
    };
    SampleSource source;
    source.run = sample;
    source.clocks = [&] { return device_.read_clocks(); };
    source.pause = [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); };
    source.now_s = now_s;
    source.warm_by_time = warm_by_time;
    NoiseTarget stop(t);
    const Samples taken = take_samples(source, t, stop);
    last_timed_s_ = now_s();
    result.cost->warmup_ms = taken.warmup_s * 1e3;
    result.cost->sampling_ms = taken.wall_s * 1e3;
    SampleStats stats = SampleStats::of(taken.ms);
    stats.converged = taken.converged;
    stats.wall_s = taken.wall_s;
    result.timing = stats;
    result.clocks = ClockRecord::of(taken.readings);
    if (result.clocks) {
      result.clocks->discarded_samples = taken.discarded;
      result.clocks->throttled = taken.throttled;
    }
  } catch (const LaunchError& e) {
    throw Outcome{Status::launch_failed, fmt::format("while timing: {}", e.what()), {}};
  }
  result.flops = shape.problem->flops();
  result.bytes = shape.problem->bytes();
  const double seconds = result.timing->median_ms * 1e-3;
  if (seconds > 0) {
    result.gflops = shape.problem->flops() / seconds * 1e-9;
    result.gbps = shape.problem->bytes() / seconds * 1e-9;
    result.item_unit = shape.problem->work_unit();
    if (!result.item_unit.empty()) result.items_per_s = shape.problem->work_items() / seconds;
  }
}

ConfigResult Evaluator::evaluate(const Job& job, const MeasureStep& step) {
  ConfigResult result;
  result.job = job;
  result.stage = step.stage;
  result.cost = EvaluationCost{};
  auto since = [](double start) { return (now_s() - start) * 1e3; };
  try {
    const KernelSpec& kernel = spec_.kernel(job.kernel);
    prepare(job.shape);
    double start = now_s();
    const Plan plan = make_plan(kernel, job.config, *prepared_, result);
    result.cost->plan_ms = since(start);  // and a compile not done ahead
    start = now_s();
    // Counters a kernel keeps in the workspace (a persistent grid's work queue) start at zero for each
    // configuration; its runs after that share them, so one that never resets them differs run to run.
    ensure_workspace(plan.workspace_bytes);
    zero_workspace();
    // Buffers declared with a reset start from their declared values for each configuration.
    restore(*prepared_, BufferReset::once);
    const auto outputs = run_once(plan, *prepared_);
    result.verify = prepared_->problem->verify(outputs, spec_.tolerance);
    if (!result.verify->passed) {
      const VerifyReport& v = *result.verify;
      throw Outcome{
          Status::incorrect,
          v.nonfinite > 0
              ? fmt::format("{} output elements are NaN/Inf (unwritten or overflowed); first: {}", v.nonfinite, v.worst)
              : fmt::format("rel_l2 {:.3g} (tolerance {:.3g}), max_abs {:.3g} (tolerance {:.3g}); "
                            "worst: {}",
                            v.rel_l2, spec_.tolerance.rel_l2, v.max_abs, spec_.tolerance.max_abs, v.worst),
          {}};
    }
    result.cost->verify_ms = since(start);
    start = now_s();
    if (checker_ && step.first()) checker_(*this, kernel, job, plan, result);
    result.cost->checks_ms = since(start);
    time(plan, *prepared_, step, result);
    result.status = Status::ok;
  } catch (const Outcome& o) {
    result.status = o.status;
    result.reason = o.reason;
    if (!o.log.empty()) result.log = o.log;
  }
  return result;
}

}  // namespace attn

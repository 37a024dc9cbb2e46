#include "tuner/run/sweep.hpp"

#include <csignal>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/run/config_runner.hpp"
#include "tuner/run/journal.hpp"
#include "tuner/run/leaderboard.hpp"
#include "tuner/spec/shape_selection.hpp"
#include "tuner/spec/space.hpp"
#include "tuner/spec/spec_loader.hpp"

namespace attn {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

// Restores the previous SIGINT/SIGTERM handlers when the sweep ends.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    old_int_ = std::signal(SIGINT, on_interrupt);
    old_term_ = std::signal(SIGTERM, on_interrupt);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "device" : out;
}

}  // namespace

std::filesystem::path default_leaderboard_path(const std::string& spec_name, const std::string& device_name) {
  return std::filesystem::path("results") / fmt::format("{}.{}.json", spec_name, slug(device_name));
}

SweepOutcome run_sweep(const SweepOptions& options, Progress& progress) {
  Spec spec = load_spec(options.spec_path);
  select_shapes(spec, options.shape_selection);
  if (!options.kernels.empty()) {
    for (const auto& name : options.kernels) spec.kernel(name);  // throws for an unknown name
    std::erase_if(spec.kernels, [&](const KernelSpec& k) {
      return std::find(options.kernels.begin(), options.kernels.end(), k.name) == options.kernels.end();
    });
  }

  std::vector<std::string> backends;
  for (const auto& [backend, _] : spec.sources) backends.push_back(backend);
  const std::string device_id = options.device_id.empty() ? best_device_id(backends) : require_device(options.device_id);

  RunSettings settings = options.settings;
  auto runner = settings.isolate ? make_worker_runner(spec, device_id, settings, options.shape_selection)
                                 : make_in_process_runner(spec, device_id, settings);
  const DeviceInfo device = runner->device_info();

  SweepOutcome outcome;
  outcome.leaderboard_path = options.out.empty() ? default_leaderboard_path(spec.name, device.name) : options.out;
  outcome.journal_path = outcome.leaderboard_path;
  outcome.journal_path += ".journal.jsonl";

  // The journal belongs to this spec file, its sources and their includes, shape selection, device and seed.
  std::string code = spec.sha256;
  for (const auto& [backend, path] : spec.sources) code += "|" + source_identity(path, spec.include_dirs).sha256;
  Journal::Header header{sha256_hex(code + "|" + options.shape_selection), device.id, settings.seed};
  Journal::Contents journaled = Journal::read(outcome.journal_path, header);
  const std::string where = outcome.journal_path.string();
  if (options.resume && !journaled.mismatch.empty())
    throw UsageError(fmt::format("cannot resume {}: {}; run without --resume (and with --overwrite) to start over", where,
                                 journaled.mismatch));
  if (!options.resume && !journaled.finished && !journaled.results.empty() && !options.overwrite)
    throw UsageError(journaled.mismatch.empty()
                         ? fmt::format("{} holds {} results of an unfinished sweep: pass --resume to continue it, or "
                                       "--overwrite to start over", where, journaled.results.size())
                         : fmt::format("{} holds {} results of an unfinished sweep, but {}: pass --overwrite to start over, "
                                       "or --out another file", where, journaled.results.size(), journaled.mismatch));
  std::map<std::string, ConfigResult> done = options.resume ? std::move(journaled.results) : std::map<std::string, ConfigResult>{};
  Journal journal(outcome.journal_path, header, /*truncate=*/!options.resume);

  // The plan: every (kernel, shape, configuration), shape-major so that each
  // shape's inputs and reference are built once.
  const Operation& op = find_operation(spec.operation);
  std::vector<ConfigResult> results;
  std::vector<Job> jobs;
  std::vector<ConfigResult> skipped;
  for (const auto& shape : spec.shapes) {
    const Bindings vars = op.variables(shape.fields);
    for (const auto& kernel : spec.kernels) {
      if (std::find(kernel.shapes.begin(), kernel.shapes.end(), shape.name) == kernel.shapes.end()) continue;
      const bool runs_here = std::find(kernel.backends.begin(), kernel.backends.end(), device.backend) != kernel.backends.end();
      for (const auto& planned : enumerate_space(kernel, vars).configs) {
        Job job{kernel.name, shape.name, planned.config, planned.preset};
        if (!planned.skip_reason.empty() || !runs_here) {
          ConfigResult r;
          r.job = job;
          r.status = Status::skipped;
          r.reason = runs_here ? planned.skip_reason : fmt::format("no {} source for this kernel", device.backend);
          skipped.push_back(std::move(r));
        } else {
          jobs.push_back(std::move(job));
        }
      }
    }
  }

  int already = 0;
  std::vector<Job> to_run;
  for (const auto& job : jobs) {
    if (done.contains(job.key())) ++already;
    else to_run.push_back(job);
  }
  runner->expect(std::move(to_run));
  progress.begin(static_cast<int>(jobs.size()), already);

  {
    InterruptGuard guard;
    for (const auto& job : jobs) {
      if (g_interrupted) break;
      if (auto it = done.find(job.key()); it != done.end()) {
        results.push_back(it->second);
        continue;
      }
      progress.starting(job);
      ConfigResult r = runner->run(job);
      if (g_interrupted) break;  // the worker died of the same Ctrl-C: not the kernel's fault
      journal.append(r);
      progress.finished(r);
      results.push_back(std::move(r));
    }
    outcome.interrupted = g_interrupted != 0;
  }
  if (!outcome.interrupted) journal.mark_finished();
  progress.end();

  for (auto& r : skipped) results.push_back(std::move(r));
  LeaderboardContext ctx{spec, device, settings, options.command_line, options.shape_selection, !outcome.interrupted};
  outcome.leaderboard = build_leaderboard(ctx, results);
  write_file_atomically(outcome.leaderboard_path, outcome.leaderboard.dump(2) + "\n");
  return outcome;
}

}  // namespace attn

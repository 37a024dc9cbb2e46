#include "tuner/sweep/sweep.hpp"

#include <chrono>
#include <csignal>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/interrupt.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/export/device_keys.hpp"
#include "tuner/plan/run_plan.hpp"
#include "tuner/plan/run_resolver.hpp"
#include "tuner/record/journal.hpp"
#include "tuner/record/leaderboard.hpp"
#include "tuner/record/measurement_identity.hpp"
#include "tuner/record/measurement_store.hpp"
#include "tuner/record/output_lock.hpp"
#include "tuner/record/ties.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/runners/device_pool.hpp"

namespace attn {
namespace {

volatile std::sig_atomic_t& g_interrupted = interrupt_requested();
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

}  // namespace

std::filesystem::path default_leaderboard_path(const std::string& spec_name, const std::string& device_name) {
  const std::string device = slug(device_name);
  return std::filesystem::path("runs") / fmt::format("{}.{}.json", spec_name, device.empty() ? "device" : device);
}

namespace {

// A space this large is not meant to be swept whole.
constexpr long long kLargeSpace = 100000;
// A floor on one configuration's compile, verification and timing, for the up-front estimate.
constexpr double kFastConfigurationS = 0.1;
// Jobs planned ahead at a time (compiled ahead, in parallel, by backends that
// can): few at first so that the first result comes at once, then more.
constexpr std::size_t kFirstChunkJobs = 32, kMaxChunkJobs = 1024;
constexpr auto kChunkTime = std::chrono::milliseconds(200);  // planning time before running what was found
constexpr long long kPointsPerStep = 4096;                   // product points looked at between two checks for Ctrl-C
// The first configurations failing to compile with the same error: the source itself is broken.
constexpr int kSameCompileFailures = 3;

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 3 * 3600) return fmt::format("{:.0f} minutes", seconds / 60);
  if (seconds < 3 * 86400) return fmt::format("{:.0f} hours", seconds / 3600);
  if (seconds < 3 * 365 * 86400.0) return fmt::format("{:.0f} days", seconds / 86400);
  return fmt::format("{:.0f} years", seconds / (365 * 86400.0));
}

// A compiler's error with the file names taken out (PoCL compiles a temporary copy of the source).
std::string without_paths(const std::string& text) {
  static const std::regex path(R"([^\s:'"]+\.(cl|cu|cuh|h|hpp|c|cpp)(:\d+))");
  return std::regex_replace(text, path, "<source>$2");
}

// Stops the sweep when its first configurations all fail to compile with the same error.
class BrokenSourceDetector {
 public:
  // Returns the message to report once the source is judged broken, else empty.
  std::string add(const ConfigResult& r) {
    if (done_) return {};
    const std::string error = without_paths(r.log.empty() ? r.reason : r.log);
    if (r.status != Status::compile_failed || (same_ > 0 && error != error_)) {
      done_ = true;
      return {};
    }
    error_ = error;
    if (++same_ < kSameCompileFailures) return {};
    done_ = true;
    const std::string& log = r.log.empty() ? r.reason : r.log;
    return fmt::format("the source does not compile: the first {} configurations failed with the same error:\n{}", same_,
                       log.size() > 4000 ? log.substr(0, 4000) + "\n[...]" : log);
  }

 private:
  bool done_ = false;
  int same_ = 0;
  std::string error_;
};

}  // namespace

namespace {

// Writes the leaderboard, then marks a complete sweep's journal finished: the journal is what a failed write
// (a full disk, --out a folder) leaves to resume from. Stopped early, the journal stays open: --resume
// --keep-going runs the rest, --overwrite starts over.
void write_leaderboard(const SweepOutcome& outcome, Journal& journal, bool complete) {
  try {
    write_file_atomically(outcome.leaderboard_path, nlohmann::json(outcome.leaderboard).dump(2) + "\n");
  } catch (const std::exception& e) {
    throw Error(
        fmt::format("{}\nevery result is kept in {}: once the leaderboard can be written, run the same "
                    "command with --resume to write it without measuring again",
                    e.what(), outcome.journal_path.string()));
  }
  if (complete) journal.mark_finished();
}

// The leaderboard names the sources its results were measured with: the ones the journal's header recorded at
// the start. An edit since then would put a new hash on old results.
void require_sources_unchanged(const Spec& spec, const Journal::Header& header, const std::filesystem::path& journal) {
  const nlohmann::json& started = header.measurement.at("sources");
  for (const auto& s : source_identities(spec)) {
    const std::string before = started.value(s.backend, "");
    if (before == s.sha256) continue;
    throw Error(
        fmt::format("{} (or a file it includes) changed while the sweep ran: sha256 {} at the start, {} now; "
                    "no leaderboard is written for results of two versions. They are in {}: undo the edit "
                    "and run the same command with --resume, or start over with --overwrite",
                    s.path, before.substr(0, 12), s.sha256.substr(0, 12), journal.string()));
  }
}

}  // namespace

SweepOutcome run_sweep(const SweepOptions& options, Progress& progress) {
  InterruptGuard guard;  // Ctrl-C from here on ends the sweep cleanly, enumeration included
  if (options.search.searching() && !options.shard.whole())
    throw UsageError("--shard splits the whole plan; a --strategy picks configurations as it goes: run one or the other");
  const ResolvedRun resolved = resolve_run({options.spec_path, options.shape_selection, options.kernels},
                                           options.devices.empty() ? options.device_id : options.devices.front());
  const Spec& spec = resolved.spec;
  const std::vector<std::string> device_ids = options.devices.empty() ? std::vector{resolved.device_id} : options.devices;

  RunSettings settings = options.settings;
  // The device as listed here; its worker processes start only when something is to be measured (a sweep that
  // the measurement store answers whole starts none).
  const DeviceInfo device = find_device(device_ids.front());
  require_timing_policy_runs_on(settings.timing, device);
  require_pool_runs(device_ids, settings);  // before anything runs: the pool starts later, or not at all
  std::optional<DevicePool> started_pool;
  auto pool = [&]() -> DevicePool& {
    if (!started_pool) started_pool.emplace(spec, device_ids, settings, options.shape_selection);
    return *started_pool;
  };

  SweepOutcome outcome;
  outcome.leaderboard_path =
      shard_path(options.out.empty() ? default_leaderboard_path(spec.name, device.name) : options.out, options.shard);
  outcome.journal_path = outcome.leaderboard_path;
  outcome.journal_path += ".journal.jsonl";

  // One sweep at a time writes this leaderboard and its journal.
  const OutputLock lock(outcome.leaderboard_path);
  // The journal belongs to what defines its measurements, the devices sharing its queue and its shard; a resume
  // must not change any of it.
  nlohmann::json identity = measurement_identity(spec, options.shape_selection, device, settings);
  if (device_ids.size() > 1) identity["devices"] = device_ids;
  if (!options.shard.whole()) identity["shard"] = options.shard.label();
  // What the sweep picks to run: resumed under another selection, the leaderboard would drop journaled results.
  if (!options.kernels.empty()) identity["kernels"] = options.kernels;
  // A larger --budget-evals continues a search (the journaled results are replayed into the strategy); a smaller
  // one is refused below, where the journal says how many each pair holds.
  if (options.search.searching()) identity["search"] = {{"strategy", options.search.strategy}};
  Journal::Header header{std::move(identity), options.command_line, utc_now()};
  Journal::Contents journaled = Journal::read(outcome.journal_path, header);
  const std::string where = outcome.journal_path.string();
  if (options.resume && !journaled.damaged.empty())
    throw UsageError(
        fmt::format("cannot resume {}: {}: the journal is damaged; run without --resume and with --overwrite "
                    "to start over",
                    where, journaled.damaged));
  if (options.resume && !journaled.mismatch.empty())
    throw UsageError(
        fmt::format("cannot resume {}: {}; resume with the settings the sweep started with, or run without "
                    "--resume (and with --overwrite) to start over",
                    where, journaled.mismatch));
  if (options.resume && options.search.budget.evaluations > 0) {
    std::map<std::string, long long> per_pair;  // "kernel / shape" -> journaled evaluations
    for (const auto& [_, r] : journaled.results) ++per_pair[r.job.kernel + " / " + r.job.shape];
    for (const auto& [pair, n] : per_pair)
      if (n > options.search.budget.evaluations)
        throw UsageError(
            fmt::format("cannot resume {}: it holds {} evaluations of {}, more than --budget-evals {}: "
                        "the leaderboard would drop measured results; resume with --budget-evals {} or more",
                        where, n, pair, options.search.budget.evaluations, n));
  }
  const std::string unusable = !journaled.damaged.empty() ? journaled.damaged : journaled.mismatch;
  if (!options.resume && !journaled.finished && !journaled.results.empty() && !options.overwrite)
    throw UsageError(unusable.empty()
                         ? fmt::format("{} holds {} results of an unfinished sweep: pass --resume to continue it, or "
                                       "--overwrite to start over",
                                       where, journaled.results.size())
                         : fmt::format("{} holds {} results of an unfinished sweep, but {}: pass --overwrite to start over, "
                                       "or --out another file",
                                       where, journaled.results.size(), unusable));
  std::map<std::string, ConfigResult> done;
  std::vector<LeaderboardResume> resumes;
  std::optional<Journal> journal;
  if (options.resume && journaled.exists) {
    for (const auto& problem : journaled.problems) spdlog::warn("{}: {}", where, problem);
    done = std::move(journaled.results);
    resumes = journaled.resumes;
    resumes.push_back({options.command_line, utc_now()});
    journal.emplace(outcome.journal_path, journaled, resumes.back());
    header.command = journaled.header.command;  // the leaderboard keeps the command that started it
    header.started_utc = journaled.header.started_utc;
  } else {
    journal.emplace(outcome.journal_path, header);
  }
  // What earlier sweeps of the same code, shapes, device and settings measured answers here, unless --remeasure.
  const MeasurementStore store(settings.compile_cache.resolved_dir(), header.measurement, device);
  outcome.store_path = store.path();
  if (!options.remeasure)
    for (auto& [key, r] : store.read())
      if (!done.contains(key)) done.emplace(key, std::move(r));
  auto replay = [&](const ConfigResult& r) {
    if (r.replayed) ++outcome.replayed;
    outcome.summary.add(r);
  };
  // Screened results are raced and the top confirmed (measure/race.hpp); thorough ones only have their near-ties
  // measured again in turns (record/ties.hpp). Not journaled: a resume decides them again.
  auto measure_again = [&](const std::vector<Job>& jobs, const std::optional<MeasureStep>& step) {
    std::vector<ConfigResult> got;
    pool().run(jobs,
               {[](const Job&) {},
                [&](ConfigResult&& r) {
                  got.push_back(std::move(r));
                  return true;
                }},
               g_interrupted, step);
    return got;
  };
  auto rank_measured = [&](std::vector<ConfigResult>& results) {
    if (g_interrupted != 0 || !outcome.stopped_early.empty()) return;
    const auto note = [&](const std::string& line) { progress.note(line); };
    if (settings.measure.staged())
      outcome.race = race_and_confirm(
          results, [&](const std::vector<Job>& jobs, const MeasureStep& step) { return measure_again(jobs, step); },
          settings, note);
    else
      resolve_ties(
          results, [&](const std::vector<Job>& jobs) { return measure_again(jobs, std::nullopt); }, settings.ties, note);
  };
  // A complete sweep keeps what it measured for the next one.
  auto keep = [&](const std::vector<ConfigResult>& results, bool complete) {
    if (!complete) return;
    if (const std::string problem = store.write(results); !problem.empty()) spdlog::warn("{}", problem);
  };

  if (options.search.searching()) {
    // A strategy picks what to run; resuming, it is told the journaled results again in order.
    std::vector<ConfigResult> results;
    BrokenSourceDetector broken_source;
    const auto pairs = static_cast<long long>(search_pairs(spec, device.backend).size());
    progress.begin(options.search.budget.evaluations * pairs, 0, options.search.budget.evaluations > 0);
    const RunJob run = [&](const Job& job) -> std::optional<ConfigResult> {
      if (g_interrupted || !outcome.stopped_early.empty()) return std::nullopt;
      if (auto it = done.find(job.key()); it != done.end()) {
        replay(it->second);
        return it->second;
      }
      std::optional<ConfigResult> r;  // one job at a time: the strategy picks the next from this result
      pool().run({job},
                 {[&](const Job& j) { progress.starting(j); },
                  [&](ConfigResult&& got) {
                    r = std::move(got);
                    return true;
                  }},
                 g_interrupted);
      if (!r || g_interrupted) return std::nullopt;  // the worker died of the same Ctrl-C: not the kernel's fault
      journal->append(*r);
      progress.finished(*r);
      outcome.summary.add(*r);
      if (!options.keep_going) outcome.stopped_early = broken_source.add(*r);
      return r;
    };
    search_spec(spec, device.backend, options.search, settings.seed, run, results);
    rank_measured(results);  // a search's evaluations are screens: its best are raced and confirmed at the end
    outcome.interrupted = g_interrupted != 0;
    const bool complete = !outcome.interrupted && outcome.stopped_early.empty();
    progress.end();
    outcome.compilations = count_compilations(results);
    LeaderboardContext ctx{spec,   device, settings, header.command, options.shape_selection, complete, header.started_utc,
                           resumes};
    require_sources_unchanged(spec, header, outcome.journal_path);
    outcome.leaderboard = build_leaderboard(ctx, results);
    if (device_ids.size() > 1) outcome.leaderboard.devices = device_ids;
    write_leaderboard(outcome, *journal, complete);
    keep(results, complete);
    return outcome;
  }

  // The plan: every (shape, kernel, configuration), shape-major so that each
  // shape's inputs and reference are built once, enumerated as it goes.
  RunPlan plan(spec, device.backend);
  outcome.summary.set_kernels_not_on_backend(device.backend, plan.kernels_not_on_backend());
  if (const std::string line = outcome.summary.not_on_backend_line(); !line.empty()) progress.note(line);
  const PlanSize size = plan.size();
  if (size.kept > kLargeSpace || !size.exact)
    progress.note(fmt::format(
        "the space holds {}{} configurations ({} before the constraints): at even {} s each that is {}; sweeping all of "
        "it will not finish, pick configurations to try with --strategy",
        size.exact ? "" : "about ", size.kept, size.product, kFastConfigurationS,
        duration_text(static_cast<double>(size.kept) * kFastConfigurationS)));
  // A shard's share of the plan is known once it is walked: about 1/N of it.
  progress.begin(size.kept / options.shard.count, static_cast<long long>(done.size()), size.exact && options.shard.whole());

  std::vector<ConfigResult> results;
  std::vector<ConfigResult> skipped;
  BrokenSourceDetector broken_source;
  const auto started = std::chrono::steady_clock::now();
  long long measured = 0;
  bool projected = false;
  std::vector<Job> chunk;
  std::size_t chunk_jobs = kFirstChunkJobs;
  bool plan_done = false;
  while (!plan_done && !g_interrupted && outcome.stopped_early.empty()) {
    // Plan the next chunk: up to chunk_jobs jobs, or what kChunkTime finds.
    chunk.clear();
    const auto chunk_start = std::chrono::steady_clock::now();
    PlannedJob planned;
    while (chunk.size() < chunk_jobs && !g_interrupted) {
      const RunPlan::Step step = plan.advance(planned, kPointsPerStep);
      if (step == RunPlan::Step::end) {
        plan_done = true;
        break;
      }
      if (step == RunPlan::Step::job && options.shard.owns(planned.job.key())) {
        if (!planned.skip_reason.empty()) {
          ConfigResult r;
          r.job = std::move(planned.job);
          r.status = Status::skipped;
          r.reason = std::move(planned.skip_reason);
          outcome.summary.add(r);
          skipped.push_back(std::move(r));
        } else {
          chunk.push_back(std::move(planned.job));
        }
      }
      if (!chunk.empty() && std::chrono::steady_clock::now() - chunk_start > kChunkTime) break;
    }
    chunk_jobs = std::min(2 * chunk_jobs, kMaxChunkJobs);
    std::vector<Job> to_run;
    for (const auto& job : chunk)
      if (!done.contains(job.key())) to_run.push_back(job);
    for (const auto& job : chunk)
      if (auto it = done.find(job.key()); it != done.end()) {
        replay(it->second);
        results.push_back(it->second);
      }

    const auto finished = [&](ConfigResult&& r) {
      journal->append(r);
      progress.finished(r);
      outcome.summary.add(r);
      const std::string broken = options.keep_going ? std::string() : broken_source.add(r);
      results.push_back(std::move(r));
      if (!broken.empty()) {
        outcome.stopped_early = broken;
        return false;
      }
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (++measured == 10 && !projected && size.kept > kLargeSpace) {
        projected = true;
        progress.note(
            fmt::format("at the {:.2f} s per configuration measured so far, the rest takes about {}",
                        elapsed / static_cast<double>(measured),
                        duration_text(elapsed / static_cast<double>(measured) * static_cast<double>(size.kept - measured))));
      }
      return true;
    };
    if (!to_run.empty()) pool().run(to_run, {[&](const Job& job) { progress.starting(job); }, finished}, g_interrupted);
  }
  rank_measured(results);
  outcome.interrupted = g_interrupted != 0;
  progress.end();
  outcome.summary.add_exclusions(plan.exclusions());

  for (auto& r : skipped) results.push_back(std::move(r));
  outcome.compilations = count_compilations(results);
  const bool complete = !outcome.interrupted && outcome.stopped_early.empty();
  LeaderboardContext ctx{spec,   device, settings, header.command, options.shape_selection, complete, header.started_utc,
                         resumes};
  require_sources_unchanged(spec, header, outcome.journal_path);
  outcome.leaderboard = build_leaderboard(ctx, results);
  if (device_ids.size() > 1) outcome.leaderboard.devices = device_ids;
  outcome.leaderboard.shard = options.shard;
  write_leaderboard(outcome, *journal, complete);
  keep(results, complete);
  return outcome;
}

}  // namespace attn

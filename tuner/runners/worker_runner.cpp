// The sweep's side of worker isolation: one `attn-tune worker` child at a
// time, a watchdog on every request, and a new child after a crash or hang.
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/registry.hpp"
#include "tuner/core/error.hpp"
#include "tuner/record/leaderboard.hpp"
#include "tuner/runners/config_runner.hpp"
#include "tuner/runners/subprocess.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

fs::path& worker_executable_override() {
  static fs::path exe;
  return exe;
}

std::string self_executable() {
  if (!worker_executable_override().empty()) return worker_executable_override().string();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(fmt::format("cannot find the attn-tune executable (/proc/self/exe): {}", ec.message()));
  return exe.string();
}

std::string tail(const std::string& s, std::size_t n = 4000) { return s.size() <= n ? s : s.substr(s.size() - n); }

class WorkerRunner final : public ConfigRunner {
 public:
  WorkerRunner(const Spec& spec, std::string device_id, RunSettings settings, std::string shape_selection)
      : spec_path_(fs::absolute(spec.path)),
        sources_(source_identities(spec)),
        device_id_(std::move(device_id)),
        settings_(std::move(settings)),
        shape_selection_(std::move(shape_selection)) {
    start();  // fail early when the device cannot be opened at all
  }

  const DeviceInfo& device_info() override { return info_; }

  ConfigResult run(const Job& job, const std::optional<MeasureStep>& step) override {
    ConfigResult result;
    result.job = job;
    if (!child_) start();

    if (prepared_shape_ != job.shape) {
      std::string line;
      nlohmann::json ahead = nlohmann::json::array();
      for (const auto& j : take_upcoming(job.shape)) ahead.push_back(j.to_json());
      if (!child_->write_line(nlohmann::json{{"type", "prepare"}, {"shape", job.shape}, {"jobs", ahead}}.dump()))
        return lost(result, "the worker closed its input before preparing the shape");
      const auto read = child_->read_line(line, settings_.prepare_timeout_s);
      if (read == Subprocess::Read::timeout)
        return killed(result, Status::timeout,
                      fmt::format("preparing shape '{}' (inputs and CPU reference) took over {} s", job.shape,
                                  settings_.prepare_timeout_s));
      if (read == Subprocess::Read::closed) return lost(result, fmt::format("while preparing shape '{}'", job.shape));
      if (read == Subprocess::Read::interrupted)
        return killed(result, Status::crashed, "interrupted: the sweep was asked to stop");
      const auto reply = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (reply.is_discarded() || reply.value("type", "") != "prepared") {
        const bool has_status = !reply.is_discarded() && reply.contains("status");
        result.status = has_status ? status_from_name(reply.at("status").get<std::string>()) : Status::crashed;
        result.reason = has_status ? reply.value("message", line)
                                   : fmt::format("preparing shape '{}' failed: {}", job.shape, reply.value("message", line));
        restart();
        return result;
      }
      prepared_shape_ = job.shape;
    } else if (const auto upcoming = take_upcoming(job.shape); !upcoming.empty()) {
      // The sweep planned its next chunk of this shape: compile it ahead.
      std::string line;
      nlohmann::json ahead = nlohmann::json::array();
      for (const auto& j : upcoming) ahead.push_back(j.to_json());
      if (!child_->write_line(nlohmann::json{{"type", "precompile"}, {"jobs", ahead}}.dump()))
        return lost(result, "the worker closed its input before compiling ahead");
      const auto read = child_->read_line(line, settings_.prepare_timeout_s);
      if (read == Subprocess::Read::timeout)
        return killed(result, Status::timeout,
                      fmt::format("compiling the next {} configurations ahead took over {} s", upcoming.size(),
                                  settings_.prepare_timeout_s));
      if (read == Subprocess::Read::closed) return lost(result, "while compiling configurations ahead");
      if (read == Subprocess::Read::interrupted)
        return killed(result, Status::crashed, "interrupted: the sweep was asked to stop");
    }

    std::string line;
    nlohmann::json request{{"type", "run"}, {"job", job.to_json()}};
    if (step) request["step"] = *step;
    if (!child_->write_line(request.dump())) return lost(result, "the worker closed its input");
    const auto read = child_->read_line(line, settings_.watchdog_s);
    if (read == Subprocess::Read::timeout)
      return killed(result, Status::timeout,
                    fmt::format("ran past the {} s watchdog; the worker was killed", settings_.watchdog_s));
    if (read == Subprocess::Read::closed) return lost(result, "while running the configuration");
    if (read == Subprocess::Read::interrupted)
      return killed(result, Status::crashed, "interrupted: the sweep was asked to stop");

    try {
      const auto reply = nlohmann::json::parse(line);
      if (reply.value("type", "") != "result") {
        result.status = Status::crashed;
        result.reason = fmt::format("worker error: {}", reply.value("message", line));
        restart();
        return result;
      }
      result = ConfigResult::from_json(reply.at("result"));
    } catch (const nlohmann::json::exception& e) {
      result.status = Status::crashed;
      result.reason = fmt::format("unreadable reply from the worker ({}): {}", e.what(), tail(line, 400));
      restart();
      return result;
    }
    if (result.status == Status::crashed) {
      // The worker exits after a lost context; keep its last words.
      result.log = tail(child_->stderr_tail());
      restart();
    }
    return result;
  }

 private:
  void start() {
    std::vector<std::string> argv = {self_executable(), "worker",         "--spec",     spec_path_.string(),
                                     "--device",        device_id_,       "--settings", settings_.to_json().dump(),
                                     "--shape",         shape_selection_, "--parent",   std::to_string(::getpid())};
    // -v reaches the worker: its log, and the compiler chatter it captures, then show on the console too.
    if (spdlog::should_log(spdlog::level::debug)) argv.insert(argv.begin() + 1, "-v");
    child_ = std::make_unique<Subprocess>(argv);
    prepared_shape_.clear();
    std::string line;
    const auto read = child_->read_line(line, 300);
    if (read != Subprocess::Read::line) {
      const std::string why = read == Subprocess::Read::timeout       ? "did not start within 300 s"
                              : read == Subprocess::Read::interrupted ? "was stopped while starting (a stop was asked)"
                                                                      : child_->exit_description();
      const std::string err = tail(child_->stderr_tail());
      child_.reset();
      throw Error(fmt::format("the worker process for {} {}{}", device_id_, why, err.empty() ? "" : ":\n" + err));
    }
    const auto hello = nlohmann::json::parse(line);
    if (hello.value("type", "") != "ready") {
      child_.reset();
      throw Error(hello.value("message", line));
    }
    if (info_.id.empty()) info_ = DeviceInfo::from_json(hello.at("device"));
    require_unchanged_source(hello.value("source_sha256", ""));
  }

  // A worker started after the kernel's source (or a header it includes) was edited would measure other code
  // than the sweep's first results, under their hash.
  void require_unchanged_source(const std::string& now) {
    for (const auto& s : sources_) {
      if (s.backend != info_.backend || s.sha256 == now) continue;
      child_.reset();
      throw Error(
          fmt::format("{} (or a file it includes) changed while the sweep ran: sha256 {} at the start, {} now. "
                      "The results measured so far are in the journal: undo the edit and run the same command "
                      "with --resume, or start over with --overwrite",
                      s.path, s.sha256.substr(0, 12), now.substr(0, 12)));
    }
  }

  void restart() {
    if (child_) child_->kill();
    child_.reset();
    prepared_shape_.clear();
  }

  ConfigResult& lost(ConfigResult& result, const std::string& when) {
    result.status = Status::crashed;
    result.reason = fmt::format("the worker process {} {}", child_->exit_description(), when);
    result.log = tail(child_->stderr_tail());
    restart();
    return result;
  }

  ConfigResult& killed(ConfigResult& result, Status status, const std::string& reason) {
    child_->kill();
    result.status = status;
    result.reason = reason;
    result.log = tail(child_->stderr_tail());
    restart();
    return result;
  }

  fs::path spec_path_;
  std::vector<LeaderboardSource> sources_;  // the kernel sources as the sweep started
  std::string device_id_;
  RunSettings settings_;
  std::string shape_selection_;
  DeviceInfo info_;
  std::unique_ptr<Subprocess> child_;
  std::string prepared_shape_;
};

}  // namespace

void set_worker_executable(const fs::path& exe) { worker_executable_override() = exe; }

std::unique_ptr<ConfigRunner> make_worker_runner(const Spec& spec, const std::string& device_id, const RunSettings& settings,
                                                 const std::string& shape_selection) {
  if (settings.timing.policy == TimingPolicy::graph) require_timing_policy_runs_on(settings.timing, find_device(device_id));
  return std::make_unique<WorkerRunner>(spec, device_id, settings, shape_selection);
}

}  // namespace attn

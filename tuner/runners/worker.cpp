// The worker process: owns the device context, evaluates jobs sent by the
// sweep, and exits after a lost context so that the sweep starts a fresh one.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/registry.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/check/checks.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/source_identity.hpp"
#include "tuner/load/shape_selection.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/measure/evaluator.hpp"
#include "tuner/runners/config_runner.hpp"

namespace attn {
namespace {

void reply(int fd, const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Ends this process once PARENT is gone. A sweep killed with -9 closes no pipe the worker is blocked on while a
// kernel runs, and an orphaned worker would keep the device busy under the next sweep's timings. The parent's
// process, not its thread, is watched: PR_SET_PDEATHSIG fires when the spawning thread ends.
void exit_with_parent(pid_t parent) {
  if (parent <= 0) return;
  if (::getppid() != parent) std::_Exit(3);  // gone before we looked
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::_Exit(3);
  }).detach();
}

}  // namespace

int serve_worker(const std::filesystem::path& spec_path, const std::string& shape_selection, const std::string& device_id,
                 const RunSettings& settings, int fd, int parent_pid) {
  exit_with_parent(parent_pid);
  std::unique_ptr<Device> device;
  std::unique_ptr<Spec> spec;
  std::unique_ptr<Evaluator> evaluator;
  try {
    spec = std::make_unique<Spec>(load_spec(spec_path));
    select_shapes(*spec, shape_selection);
    device = open_device(device_id);
    evaluator = std::make_unique<Evaluator>(*spec, *device, settings);
    install_checks(*evaluator);
    configure_compile_cache(settings.compile_cache);
  } catch (const std::exception& e) {
    reply(fd, {{"type", "fatal"}, {"message", e.what()}});
    return 2;
  }
  // What this worker compiles, so that the sweep can tell a source edited since it started (results measured
  // from it would carry the old hash).
  const std::string backend = device->info().backend;
  const std::string source_sha256 =
      spec->sources.contains(backend) ? source_identity(spec->sources.at(backend), spec->include_dirs).sha256 : "";
  reply(fd, {{"type", "ready"}, {"device", device->info().to_json()}, {"source_sha256", source_sha256}});

  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json request;
    try {
      request = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      reply(fd, {{"type", "fatal"}, {"message", fmt::format("bad request: {}", e.what())}});
      return 2;
    }
    const std::string type = request.value("type", "");
    try {
      if (type == "prepare") {
        evaluator->prepare(request.at("shape").get<std::string>());
        std::vector<Job> ahead;
        for (const auto& j : request.value("jobs", nlohmann::json::array())) ahead.push_back(Job::from_json(j));
        evaluator->precompile(ahead);
        reply(fd, {{"type", "prepared"}});
      } else if (type == "precompile") {
        std::vector<Job> ahead;
        for (const auto& j : request.at("jobs")) ahead.push_back(Job::from_json(j));
        evaluator->precompile(ahead);
        reply(fd, {{"type", "precompiled"}});
      } else if (type == "run") {
        const Job job = Job::from_json(request.at("job"));
        const ConfigResult result = request.contains("step")
                                        ? evaluator->evaluate(job, request.at("step").get<MeasureStep>())
                                        : evaluator->evaluate(job);
        reply(fd, {{"type", "result"}, {"result", result.to_json()}});
      } else {
        reply(fd, {{"type", "fatal"}, {"message", fmt::format("unknown request type '{}'", type)}});
        return 2;
      }
    } catch (const DeviceLost& e) {
      if (type == "run") {
        ConfigResult crashed;
        crashed.job = Job::from_json(request.at("job"));
        crashed.status = Status::crashed;
        crashed.reason = e.what();
        reply(fd, {{"type", "result"}, {"result", crashed.to_json()}});
      } else {
        reply(fd, {{"type", "error"}, {"message", e.what()}});
      }
      // The context is unusable: leave at once (the OS reclaims the device
      // memory; destructors would only report failing frees) and let the sweep
      // start a new worker.
      std::fflush(nullptr);
      std::_Exit(3);
    } catch (const Outcome& o) {  // a shape the host cannot hold (host_oom)
      reply(fd, {{"type", "error"}, {"status", status_name(o.status)}, {"message", o.reason}});
    } catch (const std::exception& e) {
      reply(fd, {{"type", "error"}, {"message", e.what()}});
    }
  }
  return 0;
}

}  // namespace attn

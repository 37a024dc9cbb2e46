#include <algorithm>

#include "tuner/backend/registry.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/check/checks.hpp"
#include "tuner/core/error.hpp"
#include "tuner/measure/evaluator.hpp"
#include "tuner/runners/config_runner.hpp"

namespace attn {
namespace {

class InProcessRunner final : public ConfigRunner {
 public:
  InProcessRunner(const Spec& spec, const std::string& device_id, const RunSettings& settings)
      : device_(open_device(device_id)), evaluator_(spec, *device_, settings) {
    install_checks(evaluator_);
    configure_compile_cache(settings.compile_cache);
  }

  ConfigResult run(const Job& job, const std::optional<MeasureStep>& step) override {
    try {
      if (job.shape != prepared_shape_) {
        evaluator_.prepare(job.shape);
        prepared_shape_ = job.shape;
      }
      if (const auto ahead = take_upcoming(job.shape); !ahead.empty()) evaluator_.precompile(ahead);
      return step ? evaluator_.evaluate(job, *step) : evaluator_.evaluate(job);
    } catch (const Outcome& o) {  // from prepare(): a shape the host cannot hold
      ConfigResult result;
      result.job = job;
      result.status = o.status;
      result.reason = o.reason;
      return result;
    } catch (const DeviceLost& e) {
      // Without a worker there is no fresh context to go on with.
      throw Error(std::string("the device context was lost (run without --no-isolate to survive this): ") + e.what());
    }
  }

  const DeviceInfo& device_info() override { return device_->info(); }

 private:
  std::unique_ptr<Device> device_;
  Evaluator evaluator_;
  std::string prepared_shape_;
};

}  // namespace

std::vector<Job> ConfigRunner::take_upcoming(const std::string& shape) {
  std::vector<Job> jobs;
  if (std::find(handed_out_.begin(), handed_out_.end(), shape) != handed_out_.end()) return jobs;
  handed_out_.push_back(shape);
  for (const auto& j : upcoming_)
    if (j.shape == shape) jobs.push_back(j);
  return jobs;
}

std::unique_ptr<ConfigRunner> make_in_process_runner(const Spec& spec, const std::string& device_id,
                                                     const RunSettings& settings) {
  if (settings.timing.policy == TimingPolicy::graph) require_timing_policy_runs_on(settings.timing, find_device(device_id));
  return std::make_unique<InProcessRunner>(spec, device_id, settings);
}

}  // namespace attn

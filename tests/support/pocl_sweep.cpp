#include "tests/support/pocl_sweep.hpp"

#include <cstdio>

#include "tuner/runners/config_runner.hpp"

namespace attn::test {

SweepOptions pocl_sweep_options(const std::filesystem::path& spec, const TempDir& dir) {
  set_worker_executable(binary());
  SweepOptions opt;
  opt.spec_path = spec;
  opt.device_id = "opencl:0:0";
  opt.out = dir / "lb.json";
  opt.settings.timing.min_samples = 2;
  opt.settings.timing.max_time_s = 0.01;
  opt.settings.timing.warmup_runs = 0;
  return opt;
}

SweepOptions pocl_verify_options(const std::filesystem::path& spec, const TempDir& dir) {
  SweepOptions opt = pocl_sweep_options(spec, dir);
  opt.settings.isolate = false;
  opt.settings.timing.min_samples = 1;
  opt.settings.timing.max_time_s = 0.001;
  opt.settings.timing.policy = TimingPolicy::warm;
  return opt;
}

nlohmann::json sweep_leaderboard(const SweepOptions& options) {
  Progress quiet(stderr, false, true);
  return run_sweep(options, quiet).leaderboard;
}

nlohmann::json pocl_sweep(const std::filesystem::path& spec, const TempDir& dir) {
  return sweep_leaderboard(pocl_sweep_options(spec, dir));
}

}  // namespace attn::test

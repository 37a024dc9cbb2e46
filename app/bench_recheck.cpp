#include "bench_recheck.hpp"

#include <fmt/format.h>

#include "cli_common.hpp"
#include "tuner/core/error.hpp"
#include "tuner/gate/recheck.hpp"
#include "tuner/gate/recorded_spec_measurer.hpp"
#include "tuner/record/settings.hpp"

namespace attn::cli {

int run_recheck_command(const RecheckOptions& opt) {
  const Leaderboard recorded = read_leaderboard(opt.leaderboard);
  const std::filesystem::path spec = opt.spec.empty() ? find_recorded_spec(recorded) : std::filesystem::path(opt.spec);
  const std::string device = opt.device.empty() ? recorded.device.id : opt.device;
  // The recorded settings (seed, timing policy and rules): the question is
  // whether the same measurement gives the same answer.
  RecordedSpecMeasurer measurer(spec, recorded, device);
  if (measurer.device().name != recorded.device.name)
    throw UsageError(fmt::format("{} was timed on {}; {} is {}: a recheck needs the same device", opt.leaderboard,
                                 recorded.device.name, device, measurer.device().name));
  for (const auto& d : code_differences(measurer.spec(), recorded))
    fmt::print(stderr, "note: {} differs from what {} records\n", d, opt.leaderboard);
  fmt::print("re-timing {} on {} ({}), timing policy {}\n", opt.leaderboard, measurer.device().name, device,
             timing_policy_name(recorded.settings.timing.policy));

  RecheckInput in;
  in.recorded = &recorded;
  in.measure = [&](const Job& job) { return measurer.measure(job); };
  in.top = opt.top;
  in.rounds = opt.rounds;
  in.tolerance = opt.tolerance_percent / 100;
  in.log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  const RecheckReport report = run_recheck(in);
  fmt::print("{}", recheck_table(report));
  return report.failures() == 0 ? 0 : kExitFailure;
}

}  // namespace attn::cli

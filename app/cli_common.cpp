#include "cli_common.hpp"

#include <cmath>

#include <fmt/format.h>

namespace attn::cli {
namespace {

// A finite number above LOWER, or from LOWER on when AT_LEAST: "must be > 0, got -1". inf and nan are refused
// here, not handed to a timer (CLI::PositiveNumber takes them, and prints the whole double range).
CLI::Validator finite_number(double lower, bool at_least) {
  return CLI::Validator(
      [lower, at_least](const std::string& text) {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value))
          return fmt::format("expected a finite number, got '{}'", text);
        const bool fits = at_least ? value >= lower : value > lower;
        return fits ? std::string() : fmt::format("must be {} {}, got {}", at_least ? ">=" : ">", lower, text);
      },
      at_least ? fmt::format(">= {}", lower) : fmt::format("> {}", lower));
}
CLI::Validator greater_than_zero() { return finite_number(0, false); }
CLI::Validator zero_or_more() { return finite_number(0, true); }

}  // namespace

void add_run_options(CLI::App* cmd, RunSettings& s) {
  cmd->add_option("--seed", s.seed, "Seed of the random inputs (recorded in the results)")->capture_default_str();
  auto* timing = cmd->add_option_group("Timing", "How each configuration is timed (cold L2, device events)");
  timing->add_option("--warmup", s.timing.warmup_runs, "Untimed runs before sampling")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  timing->add_option("--min-samples", s.timing.min_samples, "Fewest timed samples (at least 1)")
      ->check(CLI::Range(1, 1'000'000'000))
      ->capture_default_str();
  timing->add_option("--max-samples", s.timing.max_samples, "Most timed samples (at least --min-samples)")
      ->check(CLI::Range(1, 1'000'000'000))
      ->capture_default_str();
  timing
      ->add_option_function<double>(
          "--max-noise", [&s](double percent) { s.timing.max_noise = percent / 100.0; },
          "Stop sampling once the relative standard deviation is below this, in percent (> 0; default 0.5)")
      ->check(greater_than_zero());
  timing
      ->add_option("--max-time", s.timing.max_time_s,
                   "Seconds of sampling per configuration before giving up on the noise target")
      ->check(zero_or_more())
      ->capture_default_str();
  timing->add_option_function<std::string>(
      "--timing", [&s](const std::string& name) { s.timing.policy = timing_policy_from_name(name); },
      "Timing policy: cold (the cache evicted before each sample; default), warm, or graph (as cold, the launches "
      "replayed from a CUDA graph; CUDA only). Results of different policies are never compared (docs/timing.md)");
  timing->add_flag_function(
      "--no-flush", [&s](std::int64_t) { s.timing.policy = TimingPolicy::warm; }, "The same as --timing warm");
  timing
      ->add_option("--warmup-time", s.timing.warmup_s,
                   "GPUs: seconds of untimed runs before sampling, so that sampling starts at the sustained clock")
      ->check(zero_or_more())
      ->capture_default_str();
  auto* isolation = cmd->add_option_group("Isolation", "How crashes and hangs are contained");
  isolation
      ->add_option("--watchdog", s.watchdog_s,
                   "Seconds a configuration may run before it is killed and recorded `timeout` (> 0)")
      ->check(greater_than_zero())
      ->capture_default_str();
  add_cache_options(cmd, s.compile_cache);
  isolation->add_flag_function(
      "--no-isolate", [&s](std::int64_t) { s.isolate = false; },
      "Run in this process instead of a worker process (a crash then ends the sweep)");
  // Checked once both are parsed, whichever order they came in.
  cmd->parse_complete_callback([&s] {
    if (s.timing.max_samples < s.timing.min_samples)
      throw CLI::ValidationError(
          "--max-samples", fmt::format("{} is less than --min-samples {}", s.timing.max_samples, s.timing.min_samples));
  });
}

void add_cache_options(CLI::App* cmd, CompileCacheSettings& s) {
  auto* cache = cmd->add_option_group("Compile cache", "Compiled kernels kept on disk between runs (docs/compile-cache.md)");
  cache->add_option("--cache-dir", s.dir, "Where (default $XDG_CACHE_HOME/attn-tune, else ~/.cache/attn-tune)");
  cache->add_flag_function(
      "--no-cache", [&s](std::int64_t) { s.enabled = false; }, "Compile everything, read and write no cache");
  cache->add_option("--cache-max-mb", s.max_mb, "Size bound; least recently used entries are evicted beyond it")
      ->capture_default_str()
      ->check(greater_than_zero());
}

void add_measure_options(CLI::App* cmd, MeasureSettings& m, bool& remeasure) {
  auto* g = cmd->add_option_group(
      "Measurement",
      "Where the measurement effort goes (docs/timing.md, \"Stages\"): staged by default, every verified\n"
      "configuration screened with a few samples, the clear losers retired by a race, the top confirmed in full");
  g->add_option_function<std::string>(
       "--measure", [&m](const std::string& name) { m.mode = measure_mode_from_name(name); },
       "staged (screen, race, confirm; default) or thorough (every configuration sampled to the noise target, "
       "with a warm-up each: slower, for studying every configuration's time)")
      ->type_name("MODE");
  g->add_option("--screen-samples", m.screen_samples, "A screen's samples (it stops sooner after --screen-time)")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  g->add_option_function<double>(
       "--screen-time", [&m](double ms) { m.screen_time_s = ms / 1000.0; },
       "Milliseconds of sampling after which a screen stops (after 3 samples; default 5)")
      ->check(zero_or_more());
  g->add_option_function<double>(
       "--race-margin", [&m](double percent) { m.race_margin = percent / 100.0; },
       "Percent slower than the best (beyond two noise bands) at which the race retires a configuration (default 3)")
      ->check(zero_or_more());
  g->add_option("--race-rounds", m.race_rounds, "Race rounds, each doubling the survivors' samples")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  g->add_option("--confirm-top", m.confirm_top, "Survivors measured in full at the end, per kernel and shape")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  g->add_flag("--remeasure", remeasure,
              "Measure everything again instead of answering from what an earlier sweep of the same code, shapes, "
              "device and settings measured (the measurement store, under --cache-dir)");
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i == 0) arg = "attn-tune";
    const bool quote = arg.find_first_of(" \"'$") != std::string::npos;
    s += (i ? " " : "") + (quote ? "'" + arg + "'" : arg);
  }
  return s;
}

}  // namespace attn::cli

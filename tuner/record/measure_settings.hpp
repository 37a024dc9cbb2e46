// How a sweep spends its measurement effort (docs/timing.md, "Stages"). Staged, the default: every verified
// configuration is screened with a few samples, a race retires those slower than the best by more than a margin
// with confidence and gives the survivors more samples in rounds, and the top few are confirmed with the full
// statistics, in turns, at the sustained clock. Thorough: every configuration measured to the noise target.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace attn {

enum class MeasureMode { staged, thorough };

// How far a result's measurement went. A thorough sweep's results are all `thorough`; a staged sweep's are
// `screen` (retired after its screen), `race` (retired in a race round, or outside the confirmed top) or
// `confirm`.
enum class Stage { screen, race, confirm, thorough };

NLOHMANN_JSON_SERIALIZE_ENUM(MeasureMode, {{MeasureMode::staged, "staged"}, {MeasureMode::thorough, "thorough"}})
NLOHMANN_JSON_SERIALIZE_ENUM(
    Stage, {{Stage::screen, "screen"}, {Stage::race, "race"}, {Stage::confirm, "confirm"}, {Stage::thorough, "thorough"}})

const char* stage_name(Stage s);
// Throws UsageError naming the accepted modes.
MeasureMode measure_mode_from_name(const std::string& name);
// Confirmed and thorough results carry the full statistics: the ones winners are taken from.
inline bool fully_measured(Stage s) { return s == Stage::confirm || s == Stage::thorough; }

struct MeasureSettings {
  MeasureMode mode = MeasureMode::staged;
  // Screen: at least screen_min_samples, then stop at screen_samples or after screen_time_s of sampling.
  int screen_min_samples = 3;
  int screen_samples = 10;
  double screen_time_s = 0.005;
  // Race: retire a configuration slower than the best by more than race_margin plus race_confidence noise
  // bands (record/noise.hpp; 2 bands: about 95% for normal noise). Each round doubles the survivors' samples.
  double race_margin = 0.03;
  double race_confidence = 2.0;
  int race_rounds = 3;
  // Confirm: this many of the survivors, fastest first, measured again with the full statistics.
  int confirm_top = 4;
  // A GPU idle longer than this between two timings is warmed up again (warmup_s) before the next.
  double idle_gap_s = 1.0;

  bool staged() const { return mode == MeasureMode::staged; }
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureSettings, mode, screen_min_samples, screen_samples, screen_time_s,
                                                race_margin, race_confidence, race_rounds, confirm_top, idle_gap_s)

// What one evaluation request asks for: a screen (checks included), a race round, or a confirmation; or, in a
// thorough sweep, the full measurement.
struct MeasureStep {
  Stage stage = Stage::screen;
  int round = 0;  // race rounds count from 0

  bool first() const { return stage == Stage::screen || stage == Stage::thorough; }  // runs the checks
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureStep, stage, round)

}  // namespace attn

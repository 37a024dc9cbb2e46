// The race and the confirmation of a staged sweep (record/measure_settings.hpp). Per (kernel, shape), over the
// screened results: a configuration slower than the best by more than the margin, with confidence, is retired
// where it stands; the others are measured again in turns with twice the samples, round after round (racing,
// as irace; successive halving, as Hyperband), until at most confirm_top are left or the rounds are spent. The
// fastest confirm_top are then measured in full, in turns, at the sustained clock, and ties among them are
// resolved by the tie machinery (record/ties.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuner/record/result.hpp"
#include "tuner/record/settings.hpp"

namespace attn {

// Measures JOBS (distinct, verified before) once more each at STEP, in the order given; results in any order.
using MeasureAgain = std::function<std::vector<ConfigResult>(const std::vector<Job>&, const MeasureStep&)>;

// Whether CANDIDATE is slower than BEST by more than MARGIN plus CONFIDENCE noise bands (record/noise.hpp).
bool clearly_slower(const SampleStats& candidate, const SampleStats& best, double margin, double confidence);

struct RaceSummary {
  int screened = 0;   // results that entered a race
  int retired = 0;    // retired by it, after their screen or a round
  int confirmed = 0;  // measured in full at the end
  int measured_again = 0;
};

// Races and confirms every (kernel, shape) of RESULTS that holds screened results; groups measured before
// (replayed, or thorough) are left as they are. A result that fails when measured again takes that status: it
// is not ranked on its first timing. NOTE hears each group's outcome.
RaceSummary race_and_confirm(std::vector<ConfigResult>& results, const MeasureAgain& measure, const RunSettings& settings,
                             const std::function<void(const std::string&)>& note = {});

}  // namespace attn

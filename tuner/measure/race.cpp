#include "tuner/measure/race.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tuner/record/noise.hpp"
#include "tuner/record/ties.hpp"

namespace attn {
namespace {

using Note = std::function<void(const std::string&)>;

const ConfigResult* fastest(const std::vector<ConfigResult*>& group) {
  return *std::min_element(group.begin(), group.end(), [](const ConfigResult* a, const ConfigResult* b) {
    return a->timing->median_ms < b->timing->median_ms;
  });
}

// Measures GROUP again at STEP and takes the new timings; drops from GROUP whatever did not measure again.
void measure_again(std::vector<ConfigResult*>& group, const MeasureAgain& measure, const MeasureStep& step,
                   RaceSummary& summary, const Note& note) {
  std::vector<Job> jobs;
  std::map<std::string, ConfigResult*> by_key;
  for (ConfigResult* r : group) {
    jobs.push_back(r->job);
    by_key[r->job.key()] = r;
  }
  std::vector<ConfigResult*> kept;
  for (ConfigResult& got : measure(jobs, step)) {
    const auto it = by_key.find(got.job.key());
    if (it == by_key.end()) continue;
    ConfigResult& r = *it->second;
    ++summary.measured_again;
    if (got.status != Status::ok || !got.timing) {
      // Verified once, failed now: a configuration whose output changes between runs must not rank.
      if (note) note(fmt::format("{}: {} when measured again ({})", got.job.key(), status_name(got.status), got.reason));
      r.status = got.status;
      r.reason = fmt::format("measured again ({}): {}", stage_name(step.stage), got.reason);
      r.timing.reset();
      continue;
    }
    r.timing = got.timing;
    r.clocks = got.clocks;
    r.gflops = got.gflops;
    r.gbps = got.gbps;
    r.items_per_s = got.items_per_s;
    r.stage = step.stage;
    kept.push_back(&r);
  }
  group = std::move(kept);  // interrupted: what came back
}

void race_group(std::vector<ConfigResult*> alive, const MeasureAgain& measure, const RunSettings& settings,
                RaceSummary& summary, const Note& note) {
  const MeasureSettings& m = settings.measure;
  const std::size_t top = static_cast<std::size_t>(std::max(1, m.confirm_top));
  const std::size_t entered = alive.size();
  const std::vector<ConfigResult*> entrants = alive;
  summary.screened += static_cast<int>(entered);
  int rounds = 0;
  for (int round = 0;; ++round) {
    const SampleStats best = *fastest(alive)->timing;
    std::erase_if(alive,
                  [&](const ConfigResult* r) { return clearly_slower(*r->timing, best, m.race_margin, m.race_confidence); });
    if (alive.size() <= top || round >= m.race_rounds) break;
    measure_again(alive, measure, {Stage::race, round}, summary, note);
    ++rounds;
    if (alive.empty()) return;
  }
  std::sort(alive.begin(), alive.end(),
            [](const ConfigResult* a, const ConfigResult* b) { return a->timing->median_ms < b->timing->median_ms; });
  if (alive.size() > top) alive.resize(top);
  // Presets (the baseline) are confirmed too: "best vs baseline" holds two full measurements against each other.
  for (ConfigResult* r : entrants)
    if (!r->job.preset.empty() && r->status == Status::ok && r->timing &&
        std::find(alive.begin(), alive.end(), r) == alive.end())
      alive.push_back(r);
  summary.retired += static_cast<int>(entered - alive.size());
  measure_again(alive, measure, {Stage::confirm, 0}, summary, note);
  summary.confirmed += static_cast<int>(alive.size());
  if (note && !alive.empty())
    note(fmt::format("{} / {}: {} screened, {} retired in {} race round(s), {} confirmed in full", alive.front()->job.kernel,
                     alive.front()->job.shape, entered, entered - alive.size(), rounds, alive.size()));
  // Ties among the confirmed, measured again in full.
  resolve_tied_set(
      alive,
      [&](const std::vector<Job>& jobs) {
        return measure(jobs, {Stage::confirm, 0});
      },
      settings.ties, note);
}

}  // namespace

bool clearly_slower(const SampleStats& candidate, const SampleStats& best, double margin, double confidence) {
  if (candidate.median_ms <= best.median_ms) return false;
  return relative_gap(candidate.median_ms, best.median_ms) > margin + confidence * noise_band(candidate, best);
}

RaceSummary race_and_confirm(std::vector<ConfigResult>& results, const MeasureAgain& measure, const RunSettings& settings,
                             const Note& note) {
  RaceSummary summary;
  if (!settings.measure.staged()) return summary;
  std::map<std::pair<std::string, std::string>, std::vector<ConfigResult*>> groups;
  for (auto& r : results)
    if (r.status == Status::ok && r.timing) groups[{r.job.kernel, r.job.shape}].push_back(&r);
  for (auto& [_, group] : groups) {
    const bool screened = std::any_of(group.begin(), group.end(),
                                      [](const ConfigResult* r) { return r->stage == Stage::screen && !r->replayed; });
    if (!screened) continue;
    for (ConfigResult* r : group) r->tie.reset();  // decided again below
    race_group(std::move(group), measure, settings, summary, note);
  }
  return summary;
}

}  // namespace attn

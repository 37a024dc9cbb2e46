#include "tuner/record/ties.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "tuner/record/noise.hpp"

namespace attn {
namespace {

long long registers_of(const ConfigResult& r) {
  long long most = 0;
  for (const auto& [_, res] : r.resources) most = std::max(most, res.registers.value_or(0));
  return most;
}

long long shared_bytes_of(const ConfigResult& r) {
  long long dynamic = 0;
  for (const auto& l : r.launches) dynamic = std::max(dynamic, l.value("shared_bytes", 0LL));
  long long most = 0;
  for (const auto& [_, res] : r.resources) most = std::max(most, res.static_local_bytes.value_or(0) + dynamic);
  return most;
}

// The tie rule as a sort key (kTieRule).
auto rule_key(const ConfigResult& r) { return std::make_tuple(registers_of(r), shared_bytes_of(r), r.job.config); }

}  // namespace

void resolve_tied_set(std::vector<ConfigResult*> group, const Remeasure& remeasure, const TieSettings& s,
                      const std::function<void(const std::string&)>& note) {
  if (s.rounds <= 0 || group.empty()) return;
  std::sort(group.begin(), group.end(),
            [](const ConfigResult* a, const ConfigResult* b) { return a->timing->median_ms < b->timing->median_ms; });
  const ConfigResult& best = *group.front();
  std::vector<ConfigResult*> candidates;
  for (ConfigResult* r : group)
    if (static_cast<int>(candidates.size()) < s.max_candidates && within_noise(*r->timing, *best.timing, s.noise_multiple))
      candidates.push_back(r);
  if (candidates.size() < 2) return;
  if (note)
    note(fmt::format("{} / {}: {} configurations within noise of the best, measured again in turns ({} rounds)",
                     best.job.kernel, best.job.shape, candidates.size(), s.rounds));

  std::vector<Job> jobs;
  std::map<std::string, std::size_t> index;  // job key -> candidate
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    jobs.push_back(candidates[i]->job);
    index[candidates[i]->job.key()] = i;
  }
  // Per candidate: the median of each round, and the largest noise its measurements reported.
  std::vector<std::vector<double>> medians(candidates.size());
  std::vector<double> noise(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) noise[i] = measurement_noise(*candidates[i]->timing);
  for (int round = 0; round < s.rounds; ++round)
    for (ConfigResult& got : remeasure(jobs)) {
      const auto it = index.find(got.job.key());
      if (it == index.end()) continue;
      if (got.status != Status::ok || !got.timing) {
        if (note)
          note(fmt::format("{}: {} when measured again ({}); ranked by the first timings", got.job.key(),
                           status_name(got.status), got.reason));
        return;
      }
      medians[it->second].push_back(got.timing->median_ms);
      noise[it->second] = std::max(noise[it->second], measurement_noise(*got.timing));
    }
  // In turns, a candidate's time is the median of its rounds; its noise, the larger of what its measurements
  // reported and how far the rounds spread.
  std::vector<NoisyTime> timed(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (medians[i].size() != static_cast<std::size_t>(s.rounds)) return;  // interrupted: the first ranking stands
    timed[i] = {median(medians[i]), std::max(noise[i], relative_stddev(medians[i]))};
  }
  const std::size_t fastest =
      std::min_element(timed.begin(), timed.end(),
                       [](const NoisyTime& a, const NoisyTime& b) { return a.median_ms < b.median_ms; }) -
      timed.begin();
  std::vector<std::size_t> tied;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (within_noise(timed[i], timed[fastest], s.noise_multiple)) tied.push_back(i);
  if (tied.size() < 2) return;  // measured in turns, one was really faster: the median ranking stands
  std::sort(tied.begin(), tied.end(),
            [&](std::size_t a, std::size_t b) { return rule_key(*candidates[a]) < rule_key(*candidates[b]); });
  for (std::size_t k = 0; k < tied.size(); ++k) {
    const std::size_t i = tied[k];
    candidates[i]->tie = Tie{static_cast<int>(k) + 1, static_cast<int>(tied.size()), timed[i].median_ms, timed[i].noise};
  }
}

nlohmann::json TieSettings::to_json() const { return *this; }

TieSettings TieSettings::from_json(const nlohmann::json& j) { return j.get<TieSettings>(); }

void resolve_ties(std::vector<ConfigResult>& results, const Remeasure& remeasure, const TieSettings& settings,
                  const std::function<void(const std::string&)>& note) {
  std::map<std::pair<std::string, std::string>, std::vector<ConfigResult*>> groups;
  for (auto& r : results)
    if (r.status == Status::ok && r.timing) groups[{r.job.kernel, r.job.shape}].push_back(&r);
  for (auto& [_, group] : groups) {
    // A group an earlier sweep measured whole (the measurement store) keeps the ties it decided.
    if (std::all_of(group.begin(), group.end(), [](const ConfigResult* r) { return r->replayed; })) continue;
    for (ConfigResult* r : group) r->tie.reset();  // a resumed sweep decides its ties again
    resolve_tied_set(std::move(group), remeasure, settings, note);
  }
}

}  // namespace attn

#include "tuner/search/replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

std::vector<Config> configs_of(const LeaderboardGroup& group) {
  std::vector<Config> out;
  for (const auto& e : group.entries) out.push_back(e.job.config);
  return out;
}

// 1, 2, 5, 10, 20, 50, ... up to BUDGET, and BUDGET itself.
std::vector<long long> budget_steps(long long budget) {
  std::vector<long long> steps;
  for (long long decade = 1; decade <= budget; decade *= 10)
    for (long long m : {1, 2, 5})
      if (m * decade < budget) steps.push_back(m * decade);
  steps.push_back(budget);
  return steps;
}

std::string evals_text(const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : "-"; }

}  // namespace

RecordedGroup RecordedGroup::of(const LeaderboardGroup& group) {
  const std::vector<Config> recorded = configs_of(group);
  RecordedGroup g{group.kernel,
                  group.shape,
                  RecordedSpace(RecordedSpace::params_of(group.param_names(), recorded), recorded),
                  {},
                  0};
  double best = std::numeric_limits<double>::infinity();
  for (const auto& e : group.entries) {
    Cost cost;
    if (e.status == Status::ok && e.timing) cost = e.timing->median_ms;
    g.costs[config_key(e.job.config)] = cost;
    if (cost) best = std::min(best, *cost);
  }
  if (!std::isfinite(best))
    throw UsageError(fmt::format("{} on {}: no configuration ran ok, nothing to search for", group.kernel, group.shape));
  g.best = best;
  return g;
}

std::optional<double> quantile(const std::vector<std::optional<double>>& sorted, double q) {
  if (sorted.empty()) return std::nullopt;
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = static_cast<std::size_t>(std::ceil(at));
  if (!sorted[lo] || !sorted[hi]) return std::nullopt;
  return *sorted[lo] + (at - static_cast<double>(lo)) * (*sorted[hi] - *sorted[lo]);
}

ReplayResult replay(const RecordedGroup& group, const ReplayOptions& options) {
  ReplayResult result{group.kernel, group.shape, group.size(), group.best, 0, {}, {}, {}, {}, 0};
  result.budget = options.budget_evals > 0 ? std::min(options.budget_evals, group.size()) : group.size();
  const Evaluate recorded = [&](const Config& c) {
    const auto it = group.costs.find(config_key(c));
    if (it == group.costs.end()) throw Error(fmt::format("replay: {} is not recorded", config_key(c)));
    return it->second;
  };

  for (int r = 0; r < options.repeat; ++r) {
    const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(r);
    auto strategy = make_strategy(options.strategy, group.space, seed);
    const SearchRun run = run_search(*strategy, {result.budget, 0}, recorded);
    std::vector<double> best_so_far;
    double best = std::numeric_limits<double>::infinity();
    ReplayRun summary{seed, static_cast<long long>(run.evaluations.size()), std::nullopt, 0, {}, run.strategy_seconds};
    for (const auto& o : run.evaluations) {
      if (o.cost && *o.cost < best) {
        best = *o.cost;
        summary.best = o.config;
        summary.best_ms = best;
        summary.improvements.emplace_back(static_cast<long long>(best_so_far.size()) + 1, best);
      }
      best_so_far.push_back(best);
    }
    result.best_so_far.push_back(std::move(best_so_far));
    result.runs.push_back(std::move(summary));
  }

  for (double tolerance : options.within) {
    std::vector<std::optional<double>> needed;
    for (const auto& run : result.best_so_far) {
      std::optional<double> n;
      for (std::size_t i = 0; i < run.size() && !n; ++i)
        if (run[i] <= group.best * (1 + tolerance)) n = static_cast<double>(i + 1);
      needed.push_back(n);
    }
    // Unreached runs sort last.
    std::sort(needed.begin(), needed.end(), [](const auto& a, const auto& b) { return a && (!b || *a < *b); });
    EvalsQuartiles q{
        quantile(needed, 0.25), quantile(needed, 0.5), quantile(needed, 0.75),
        static_cast<int>(std::count_if(needed.begin(), needed.end(), [](const auto& n) { return n.has_value(); }))};
    result.within.emplace_back(tolerance, q);
  }

  std::vector<double> seconds;
  for (const auto& run : result.runs)
    seconds.insert(seconds.end(), run.strategy_seconds.begin(), run.strategy_seconds.end());
  if (!seconds.empty()) {
    std::nth_element(seconds.begin(), seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2), seconds.end());
    result.strategy_ms_median = 1000 * seconds[seconds.size() / 2];
  }

  for (long long step : budget_steps(result.budget)) {
    std::vector<std::optional<double>> gaps;
    for (const auto& run : result.best_so_far) {
      const auto i = static_cast<std::size_t>(std::min<long long>(step, static_cast<long long>(run.size())) - 1);
      gaps.emplace_back(run.empty() ? std::numeric_limits<double>::infinity() : run[i] / group.best - 1);
    }
    std::sort(gaps.begin(), gaps.end());
    result.gap_at_budget.emplace_back(step, quantile(gaps, 0.5).value_or(0));
  }
  return result;
}

nlohmann::json replay_json(const std::vector<ReplayResult>& results, const ReplayOptions& options) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json within = nlohmann::json::array();
    for (const auto& [tolerance, q] : r.within) {
      auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      within.push_back({{"within", tolerance},
                        {"q1", value(q.q1)},
                        {"median", value(q.median)},
                        {"q3", value(q.q3)},
                        {"reached", q.reached}});
    }
    nlohmann::json gaps = nlohmann::json::array();
    for (const auto& [budget, gap] : r.gap_at_budget) gaps.push_back({{"budget", budget}, {"median_gap", gap}});
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : r.runs) {
      nlohmann::json improvements = nlohmann::json::array();
      for (const auto& [evaluation, ms] : run.improvements) improvements.push_back({evaluation, ms});
      runs.push_back({{"seed", run.seed},
                      {"evaluations", run.evaluations},
                      {"best", run.best ? nlohmann::json(config_key(*run.best)) : nlohmann::json(nullptr)},
                      {"best_ms", run.best ? nlohmann::json(run.best_ms) : nlohmann::json(nullptr)},
                      {"improvements", improvements}});
    }
    groups.push_back({{"kernel", r.kernel},
                      {"shape", r.shape},
                      {"space_size", r.space_size},
                      {"best_ms", r.best_ms},
                      {"budget", r.budget},
                      {"evaluations_to_within", within},
                      {"best_at_budget", gaps},
                      {"strategy_ms_per_evaluation_median", r.strategy_ms_median},
                      {"runs", runs}});
  }
  return {{"schema", "attn-tune.replay/1"},
          {"strategy", options.strategy},
          {"repeat", options.repeat},
          {"seed", options.seed},
          {"groups", groups}};
}

std::string replay_table(const std::vector<ReplayResult>& results, const ReplayOptions& options) {
  std::string out;
  for (const auto& r : results) {
    out += fmt::format("{} on {}: {} recorded configurations, best {:.4f} ms; {} over {} runs of {} evaluations\n", r.kernel,
                       r.shape, r.space_size, r.best_ms, options.strategy, options.repeat, r.budget);
    out += "  evaluations to within   median   q1 - q3   reached\n";
    for (const auto& [tolerance, q] : r.within)
      out += fmt::format("  {:>20}   {:>6}   {:>7}   {}/{}\n", fmt::format("{:g}%", tolerance * 100), evals_text(q.median),
                         fmt::format("{}-{}", evals_text(q.q1), evals_text(q.q3)), q.reached, options.repeat);
    out += "  best found (median over runs, % slower than the recorded best) at each budget:\n   ";
    for (const auto& [budget, gap] : r.gap_at_budget) out += fmt::format(" {}:{:.1f}%", budget, gap * 100);
    out += fmt::format("\n  the strategy's own time: median {:.3f} ms per evaluation\n", r.strategy_ms_median);
  }
  return out;
}

}  // namespace attn

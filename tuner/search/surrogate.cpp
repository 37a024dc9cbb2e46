#include "tuner/search/surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

namespace attn {
namespace {

constexpr std::size_t kBestNeighbourhoods = 5;
constexpr double kExploration = 0.01;  // in log(time): improvements under 1% count for little
constexpr double kFailurePenalty = 1.0;
constexpr double kNoImprovement = 1e-12;  // log(time) above the slowest success: e times slower

// A value as a number for the log2 feature: integers and booleans as such, reals as
// themselves; an identifier has none (0: modelled by its position).
double number(const ParamValue& v) {
  return v.kind() == ParamValue::Kind::real ? v.real_value() : v.is_bindable() ? static_cast<double>(v.integer()) : 0.0;
}

}  // namespace

double expected_improvement(double mean, double stddev, double best) {
  const double gain = best - mean - kExploration;
  if (stddev <= 1e-12) return std::max(gain, 0.0);
  const double z = gain / stddev;
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  return gain * cdf + stddev * pdf;
}

SurrogateSearch::SurrogateSearch(const SpaceSampler& space, std::uint64_t seed) : Strategy(space, seed) {}

std::vector<double> SurrogateSearch::features(const Config& config) const {
  // A parameter whose values are all positive by its value's log2 (tile sizes, thread and split
  // counts act by ratios, and a random threshold on the log resolves the small values where a
  // list such as 1..32, 36, ..., 128 is dense); any other by its value's position in its list.
  const auto pos = space_.positions(config);
  const auto& params = space_.params();
  std::vector<double> f(params.size(), 0.0);
  for (std::size_t p = 0; pos && p < f.size(); ++p) {
    const auto& values = params[p].second;
    const bool positive = std::all_of(values.begin(), values.end(), [](const ParamValue& v) { return number(v) > 0; });
    f[p] = positive ? std::log2(number(config[p].second)) : static_cast<double>((*pos)[p]);
  }
  return f;
}

std::vector<Config> SurrogateSearch::candidates() {
  std::vector<Config> out;
  if (space_.product_size() <= kEnumerateUpTo) {
    // Listed on first use, not in the constructor, so that a --budget-time search counts it.
    if (!listed_) {
      for (long long i = 0; i < space_.product_size(); ++i)
        if (Config c = space_.at(i); space_.valid(c)) all_valid_.push_back(std::move(c));
      listed_ = true;
    }
    for (const auto& c : all_valid_)
      if (!proposed(c)) out.push_back(c);
    return out;
  }
  // Sampling over what is proposed or already a candidate keeps the candidates distinct.
  std::set<std::string> taken;
  for (const auto& o : history()) taken.insert(config_key(o.config));
  auto add = [&](Config c) {
    if (taken.insert(config_key(c)).second) out.push_back(std::move(c));
  };
  // The neighbourhoods of the best so far, then uniform samples.
  std::vector<Observation> best = history();
  std::stable_sort(best.begin(), best.end(),
                   [](const Observation& a, const Observation& b) { return better(a.cost, b.cost); });
  for (std::size_t i = 0; i < std::min(best.size(), kBestNeighbourhoods) && best[i].cost; ++i)
    for (auto& n : unproposed_neighbours(best[i].config)) add(std::move(n));
  for (std::size_t i = 0; i < kSampledCandidates; ++i) {
    auto c = space_.sample_unseen(rng_, taken);
    if (!c) break;
    add(std::move(*c));
  }
  std::erase_if(out, [&](const Config& c) { return proposed(c); });
  return out;
}

std::optional<Config> SurrogateSearch::next() {
  const auto& told = history();
  const bool any_success = std::any_of(told.begin(), told.end(), [](const Observation& o) { return o.cost.has_value(); });
  if (told.size() < kInitialDesign || !any_success) return random_unproposed();

  double slowest = -std::numeric_limits<double>::infinity(), best = -slowest;
  for (const auto& o : told)
    if (o.cost) {
      slowest = std::max(slowest, std::log(*o.cost));
      best = std::min(best, std::log(*o.cost));
    }
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& o : told) {
    x.push_back(features(o.config));
    y.push_back(o.cost ? std::log(*o.cost) : slowest + kFailurePenalty);
  }
  model_.fit(x, y, rng_);

  std::optional<Config> choice;
  double best_ei = -1;
  for (auto& c : candidates()) {
    const auto p = model_.predict(features(c));
    const double ei = expected_improvement(p.mean, p.stddev, best);
    if (ei > best_ei) {
      best_ei = ei;
      choice = std::move(c);
    }
  }
  // No candidate is expected to improve (the trees agree everywhere): explore at random rather
  // than take the first candidate in product order.
  if (!choice || best_ei <= kNoImprovement) return random_unproposed();
  return choice;
}

}  // namespace attn

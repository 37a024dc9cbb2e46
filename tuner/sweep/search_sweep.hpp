// A sweep driven by a search strategy instead of the exhaustive plan: for each
// (shape, kernel) pair, in the sweep's shape-major order, the strategy
// proposes configurations of the pair's constrained space until the budget is
// spent. Resuming replays the journaled results into a fresh strategy in the
// same order, so it continues exactly where the interrupted run stopped.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tuner/record/result.hpp"
#include "tuner/search/search_loop.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct SearchOptions {
  std::string strategy = "exhaustive";
  SearchBudget budget;  // per (kernel, shape)
  // Exhaustive with no budget is the sweep's own plan (presets outside the product included).
  bool searching() const { return strategy != "exhaustive" || budget.evaluations > 0 || budget.seconds > 0; }
};

// Runs one job, from the journal or on the device; nullopt when the sweep must stop (Ctrl-C).
using RunJob = std::function<std::optional<ConfigResult>(const Job&)>;

// The (shape, kernel) pairs a search covers: shape-major, kernels with a source for BACKEND.
std::vector<std::pair<const Shape*, const KernelSpec*>> search_pairs(const Spec& spec, const std::string& backend);

// Appends each pair's results to RESULTS in the order they ran. False when RUN asked to stop.
// Each pair's strategy is seeded from SEED and the pair's names.
bool search_spec(const Spec& spec, const std::string& backend, const SearchOptions& options, std::uint64_t seed,
                 const RunJob& run, std::vector<ConfigResult>& results);

// The cost a strategy minimises: the median time of a verified configuration.
Cost result_cost(const ConfigResult& result);

}  // namespace attn

// The parameter space a search strategy walks, without enumerating it: each
// parameter's value list, whether a configuration is valid, and sampling of
// valid configurations by rejection over the cartesian product. A spec's
// kernel on one shape (its constraint expressions) or a recorded leaderboard
// group (the configurations it holds) are the two spaces behind it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tuner/core/rng.hpp"
#include "tuner/spec/space.hpp"

namespace attn {

class SpaceSampler {
 public:
  using Params = std::vector<std::pair<std::string, std::vector<ParamValue>>>;

  explicit SpaceSampler(Params params);
  virtual ~SpaceSampler() = default;

  const Params& params() const { return params_; }
  // The cartesian product's size before any constraint; saturates at INT64_MAX.
  long long product_size() const { return product_size_; }

  bool valid(const Config& config) const { return is_valid(config); }

  // The configuration at INDEX of the product, first parameter slowest (the sweep's order).
  Config at(long long index) const;
  // Each parameter's position in its value list; nullopt when a value is not in it.
  std::optional<std::vector<std::size_t>> positions(const Config& config) const;
  Config from_positions(const std::vector<std::size_t>& positions) const;

  // A uniformly drawn valid configuration whose key is not in SEEN. Draws by rejection;
  // after many rejections it walks the product from a random index, so a small or
  // sparse space is still covered. nullopt when every valid configuration is in SEEN.
  std::optional<Config> sample_unseen(UniformStream& rng, const std::set<std::string>& seen) const;

  // Valid configurations that differ from CONFIG in exactly one parameter, in
  // parameter order then value order.
  std::vector<Config> neighbours(const Config& config) const;

 private:
  virtual bool is_valid(const Config& config) const = 0;
  Params params_;
  long long product_size_ = 1;
};

// A spec kernel's space on one shape: valid = every constraint holds.
class ConstrainedSpace final : public SpaceSampler {
 public:
  ConstrainedSpace(const KernelSpec& kernel, Bindings shape_variables);

  const KernelSpec& kernel() const { return kernel_; }
  // The index in kernel().constraints of the first constraint CONFIG breaks on
  // this shape (one that cannot be evaluated breaks); nullopt when none does.
  std::optional<std::size_t> first_failed(const Config& config) const;

 private:
  bool is_valid(const Config& config) const override;
  const KernelSpec& kernel_;
  Bindings shape_variables_;
};

// The configurations a recorded sweep holds: valid = recorded (whatever its status).
class RecordedSpace final : public SpaceSampler {
 public:
  // PARAMS: each parameter with the values the recorded configurations use, sorted.
  RecordedSpace(Params params, const std::vector<Config>& recorded);
  static Params params_of(const std::vector<std::string>& names, const std::vector<Config>& recorded);

 private:
  bool is_valid(const Config& config) const override;
  std::set<std::string> recorded_;
};

// A number in [0, n) from RNG, the same on every standard library.
inline std::uint64_t uniform_index(UniformStream& rng, std::uint64_t n) { return n == 0 ? 0 : rng.bits() % n; }

}  // namespace attn

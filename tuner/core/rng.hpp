// Reproducible random inputs: the same (seed, stream) gives the same numbers on
// every machine, so a sequence's inputs at B=1 equal its inputs inside B=33.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace attn {

// Derives an independent stream seed from a run seed and labels (buffer name, sequence index).
inline std::uint64_t stream_seed(std::uint64_t seed, std::string_view label, std::uint64_t index) {
  std::uint64_t h = 1469598103934665603ull ^ seed;  // FNV-1a over the label, mixed with seed and index
  for (char c : label) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h ^= index + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

// Uniform floats in [lo, hi). std::uniform_real_distribution is not the same
// across standard libraries; this mapping of mt19937_64's output is.
class UniformStream {
 public:
  explicit UniformStream(std::uint64_t seed) : engine_(seed) {}
  double next(double lo, double hi) {
    const double unit = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * unit;
  }
  std::uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// N floats uniform in [lo, hi) from the stream (SEED, LABEL, 0): a whole input buffer.
inline std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, std::string_view label, double lo, double hi) {
  UniformStream rng(stream_seed(seed, label, 0));
  std::vector<float> out(n);
  for (auto& x : out) x = static_cast<float>(rng.next(lo, hi));
  return out;
}

}  // namespace attn

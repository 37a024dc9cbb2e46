// CPU reference values kept on disk, so that a shape's reference is computed once: not once per worker of a
// sweep (16 workers at once would each take every core for it), nor once per sweep of the same shape. One file
// per key under <cache dir>/references/, written atomically and checked by its SHA-256 when read; the key names
// everything the values are computed from (the evaluator builds it: operation, shape, the input bytes, the
// verified rows, the running build). Off with --no-cache or ATTN_TUNE_REFERENCE_STORE=0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attn {

class ReferenceStore {
 public:
  // Off when DIR is empty or the environment turns it off. Files beyond MAX_BYTES go, least recently used first.
  ReferenceStore(std::filesystem::path dir, std::uint64_t max_bytes);

  bool enabled() const { return !dir_.empty(); }

  // The values under KEY; nullopt when there are none, or when the file is damaged (then it is removed).
  std::optional<std::vector<double>> load(const std::string& key) const;

  // Keeps VALUES under KEY. Never throws: a store that cannot be written costs time, not results.
  void save(const std::string& key, const std::vector<double>& values) const;

  // The values under KEY, else COMPUTE()'s, kept. Processes asking for one key at once compute it once: the
  // first holds the key's lock file while the others wait for it, then read what it kept.
  std::vector<double> load_or_compute(const std::string& key, const std::function<std::vector<double>()>& compute) const;

  std::filesystem::path entry_path(const std::string& key) const;

 private:
  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
};

}  // namespace attn

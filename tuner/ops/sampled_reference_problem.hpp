// A problem verified against a double-precision CPU reference on a sample of
// its logical rows (all of them when few; see sample_rows). The sample and its
// reference values are computed once per row limit, on first use, under a
// lock: verify() and precompute_reference() are called from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "tuner/ops/operation.hpp"

namespace attn {

class SampledReferenceProblem : public Problem {
 public:
  void precompute_reference(const Tolerance& tol) const override { reference(tol); }
  bool keeps_reference() const override { return true; }
  std::vector<double> reference_values(const Tolerance& tol) const override { return reference(tol).values; }
  bool adopt_reference(const Tolerance& tol, std::vector<double> values) const override;

 protected:
  struct Reference {
    std::vector<std::size_t> rows;  // increasing
    std::vector<double> values;     // reference_row_length() values per entry of rows
  };

  // SEED draws the sample; DEFAULT_LIMIT is its size when the tolerance sets no max_rows.
  SampledReferenceProblem(std::uint64_t seed, std::size_t default_limit) : seed_(seed), default_limit_(default_limit) {}

  const Reference& reference(const Tolerance& tol) const;
  std::size_t row_limit(const Tolerance& tol) const;

  std::uint64_t seed_;

 private:
  virtual std::size_t reference_rows() const = 0;  // logical rows in all
  // Rows in every sample, e.g. each sequence's first and last.
  virtual std::vector<std::size_t> always_checked_rows() const = 0;
  virtual std::size_t reference_row_length() const = 0;
  // Work all rows share (e.g. a state summed over every key), done before the rows.
  virtual void prepare_reference() const {}
  // Writes reference_row_length() values of logical row ROW; called from several threads.
  virtual void reference_row(std::size_t row, double* out) const = 0;

  std::size_t default_limit_;
  mutable std::mutex mutex_;
  mutable std::size_t limit_ = 0;  // the row limit ref_ was computed for; 0: none yet
  mutable Reference ref_;
};

}  // namespace attn

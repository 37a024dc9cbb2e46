// What a run came to, status by status, for the verdict of sweep and bench: a
// run in which no configuration ended `ok` failed, and says why (counts per
// status, the first reasons, the kernels that could not run a shape).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/plan/run_plan.hpp"
#include "tuner/record/result.hpp"

namespace attn {

class RunSummary {
 public:
  void add(const ConfigResult& result);
  void add_exclusions(const std::vector<Exclusion>& exclusions);
  void set_kernels_not_on_backend(std::string backend, std::vector<std::string> kernels);

  long long count(Status status) const;
  long long total() const;
  bool any_ok() const { return count(Status::ok) > 0; }

  // "3 ok, 2 compile_failed, 1 skipped"
  std::string counts_text() const;
  // One line: the kernels with no source for the backend; empty when none.
  std::string not_on_backend_line() const;
  // Why nothing ran: the counts, the first reason of each status, and which
  // kernel cannot run which shape (the first constraint that excluded it).
  std::string failure_text() const;

 private:
  std::map<Status, long long> counts_;
  std::map<Status, std::string> first_;  // "kernel/shape config: reason"
  std::vector<Exclusion> exclusions_;
  std::string backend_;
  std::vector<std::string> not_on_backend_;
};

}  // namespace attn

#include "tuner/sweep/run_summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace attn {
namespace {

constexpr std::size_t kExclusionsShown = 8;

}  // namespace

void RunSummary::add(const ConfigResult& r) {
  ++counts_[r.status];
  if (r.status != Status::ok && !first_.contains(r.status))
    first_[r.status] = fmt::format("{}/{} {}: {}", r.job.kernel, r.job.shape, config_key(r.job.config), r.reason);
}

void RunSummary::add_exclusions(const std::vector<Exclusion>& exclusions) {
  exclusions_.insert(exclusions_.end(), exclusions.begin(), exclusions.end());
}

void RunSummary::set_kernels_not_on_backend(std::string backend, std::vector<std::string> kernels) {
  backend_ = std::move(backend);
  not_on_backend_ = std::move(kernels);
}

long long RunSummary::count(Status status) const {
  const auto it = counts_.find(status);
  return it == counts_.end() ? 0 : it->second;
}

long long RunSummary::total() const {
  long long n = 0;
  for (const auto& [_, c] : counts_) n += c;
  return n;
}

std::string RunSummary::counts_text() const {
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts_) parts.push_back(fmt::format("{} {}", n, status_name(status)));
  return parts.empty() ? std::string("no configuration") : fmt::format("{}", fmt::join(parts, ", "));
}

std::string RunSummary::not_on_backend_line() const {
  if (not_on_backend_.empty()) return {};
  return fmt::format("not run: {} kernel{} with no {} source: {}", not_on_backend_.size(),
                     not_on_backend_.size() == 1 ? "" : "s", backend_, fmt::join(not_on_backend_, ", "));
}

std::string RunSummary::failure_text() const {
  std::string out = fmt::format("no configuration ran ok ({})\n", counts_text());
  for (const auto& [status, reason] : first_)
    out += fmt::format("  first {}: {}\n", status_name(status), reason.substr(0, 400));
  for (std::size_t i = 0; i < exclusions_.size() && i < kExclusionsShown; ++i) out += "  " + exclusions_[i].text() + "\n";
  if (exclusions_.size() > kExclusionsShown)
    out += fmt::format("  ... and {} more kernel/shape pairs with nothing to run\n", exclusions_.size() - kExclusionsShown);
  if (const std::string line = not_on_backend_line(); !line.empty()) out += "  " + line + "\n";
  return out;
}

}  // namespace attn

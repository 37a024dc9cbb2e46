#include "tuner/record/determinism_summary.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"

namespace attn {
namespace {

// Where each check's details live under "details".
const char* details_key(const std::string& check) {
  if (check == "deterministic") return "cross_run";
  if (check == "batch_invariant") return "batch_invariance";
  return "cache_growth";
}

const char* failure_text(const std::string& check) {
  if (check == "deterministic") return "not deterministic across runs";
  if (check == "batch_invariant") return "not batch-invariant";
  return "not invariant under decode cache growth";
}

nlohmann::json brief(const ConfigResult& r) {
  return {{"key", config_key(r.job.config)}, {"preset", r.job.preset}, {"median_ms", r.timing->median_ms}};
}

}  // namespace

const std::vector<std::string>& determinism_check_names() {
  static const std::vector<std::string> names{"deterministic", "batch_invariant", "cache_growth"};
  return names;
}

std::string determinism_check_name(const std::string& cli_name) {
  std::string name = cli_name;
  std::replace(name.begin(), name.end(), '-', '_');
  const auto& names = determinism_check_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw UsageError(
        fmt::format("--require: unknown check '{}' (known: deterministic, batch-invariant, cache-growth)", cli_name));
  return name;
}

bool passes_checks(const nlohmann::json& checks, const std::vector<std::string>& required, std::string* why) {
  for (const auto& name : required) {
    const auto it = checks.find(name);
    if (it == checks.end()) {
      if (why) *why = fmt::format("{} was not checked", name);
      return false;
    }
    if (!it->is_boolean() || it->get<bool>()) continue;  // null: does not apply here
    if (why) {
      *why = failure_text(name);
      const nlohmann::json details =
          checks.value("details", nlohmann::json::object()).value(details_key(name), nlohmann::json::object());
      if (details.contains("mismatch")) *why += ": " + mismatch_summary(details.at("mismatch"));
    }
    return false;
  }
  return true;
}

nlohmann::json determinism_summary(const std::vector<ConfigResult>& fastest_first,
                                   const std::vector<std::string>& required) {
  const std::vector<std::string> criterion =
      required.empty() ? std::vector<std::string>{"deterministic", "batch_invariant"} : required;
  std::vector<const ConfigResult*> timed;
  for (const auto& r : fastest_first)
    if (r.status == Status::ok && r.timing && r.checks.contains("deterministic")) timed.push_back(&r);
  if (timed.empty()) return nullptr;
  std::sort(timed.begin(), timed.end(), [](auto* a, auto* b) { return a->timing->median_ms < b->timing->median_ms; });

  int deterministic = 0, batch_invariant = 0, passing = 0;
  const ConfigResult* fastest_passing = nullptr;
  for (const ConfigResult* r : timed) {
    deterministic += r->checks.value("deterministic", nlohmann::json(false)) == true;
    batch_invariant += r->checks.value("batch_invariant", nlohmann::json(false)) == true;
    if (!passes_checks(r->checks, criterion, nullptr)) continue;
    ++passing;
    if (!fastest_passing) fastest_passing = r;
  }
  nlohmann::json s = {{"criterion", criterion},
                      {"checked", timed.size()},
                      {"deterministic", deterministic},
                      {"batch_invariant", batch_invariant},
                      {"passing", passing},
                      {"fastest_overall", brief(*timed.front())},
                      {"fastest_passing", nullptr},
                      {"cost", nullptr}};
  if (fastest_passing) {
    s["fastest_passing"] = brief(*fastest_passing);
    s["cost"] = fastest_passing->timing->median_ms / timed.front()->timing->median_ms;
  }
  return s;
}

std::string checks_cell(const nlohmann::json& entry) {
  if (!entry.contains("checks") || !entry.at("checks").contains("deterministic")) return "";
  const auto& c = entry.at("checks");
  auto mark = [&](const char* name) {
    const auto it = c.find(name);
    return it == c.end() || it->is_null() ? "-" : it->get<bool>() ? "y" : "n";
  };
  return fmt::format("{}/{}/{}", mark("deterministic"), mark("batch_invariant"), mark("cache_growth"));
}

std::string determinism_summary_line(const nlohmann::json& s) {
  const auto& all = s.at("fastest_overall");
  const std::string criterion = fmt::format("{}", fmt::join(s.at("criterion").get<std::vector<std::string>>(), " + "));
  if (s.at("fastest_passing").is_null())
    return fmt::format("determinism: none of {} checked configurations is {}; fastest overall {} {:.4f} ms\n",
                       s.at("checked").get<int>(), criterion, all.at("key").get<std::string>(),
                       all.at("median_ms").get<double>());
  const auto& pass = s.at("fastest_passing");
  return fmt::format("determinism: fastest {} {} {:.4f} ms / fastest overall {} {:.4f} ms = {:.3f}x ({} of {} pass)\n",
                     criterion, pass.at("key").get<std::string>(), pass.at("median_ms").get<double>(),
                     all.at("key").get<std::string>(), all.at("median_ms").get<double>(), s.at("cost").get<double>(),
                     s.at("passing").get<int>(), s.at("checked").get<int>());
}

std::string mismatch_summary(const nlohmann::json& m) {
  auto value = [](const nlohmann::json& v) {
    return v.is_number() ? fmt::format("{:.9g}", v.get<double>()) : std::string("NaN");
  };
  const auto& ulps = m.at("ulps");
  const std::string distance =
      ulps.is_null() ? "NaN involved"
                     : fmt::format("{} ulp{}", ulps.get<std::uint64_t>(), ulps.get<std::uint64_t>() == 1 ? "" : "s");
  const auto n = m.value("differing_elements", std::size_t{1});
  return fmt::format("{}: {} ({}) vs {} ({}), {}; {} element{} differ{}", m.at("element").get<std::string>(),
                     value(m.at("reference_value")), m.at("reference").get<std::string>(), value(m.at("compared_value")),
                     m.at("compared").get<std::string>(), distance, n, n == 1 ? "" : "s", n == 1 ? "s" : "");
}

}  // namespace attn

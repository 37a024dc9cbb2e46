#include "tuner/measure/kept_reference.hpp"

#include <string_view>

#include "tuner/core/program_identity.hpp"
#include "tuner/core/sha256.hpp"

namespace attn {
namespace {

std::string digest(const std::vector<std::byte>& bytes) {
  return sha256_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

std::string reference_key(const Problem& problem, const std::string& operation, const nlohmann::json& fields,
                          std::uint64_t seed, const Tolerance& tol) {
  const std::string program = running_program_identity();
  if (program.empty()) return {};
  nlohmann::json inputs = nlohmann::json::object();
  for (const HostBuffer& b : problem.buffers())
    if (!b.is_output) inputs[b.name] = digest(b.data);
  const nlohmann::json identity = {{"program", program},
                                   {"operation", operation},
                                   {"fields", fields},
                                   {"seed", seed},
                                   {"max_rows", tol.max_rows},
                                   {"inputs", inputs},
                                   {"params", digest(problem.params_bytes())}};
  return sha256_hex(identity.dump());
}

bool prepare_reference(const Problem& problem, const std::string& operation, const nlohmann::json& fields,
                       std::uint64_t seed, const Tolerance& tol, const ReferenceStore& store) {
  const std::string key =
      store.enabled() && problem.keeps_reference() ? reference_key(problem, operation, fields, seed, tol) : "";
  if (key.empty()) {
    problem.precompute_reference(tol);
    return false;
  }
  bool computed = false;
  std::vector<double> values = store.load_or_compute(key, [&] {
    computed = true;
    return problem.reference_values(tol);
  });
  if (computed) return false;  // the problem holds them already
  if (problem.adopt_reference(tol, std::move(values))) return true;
  problem.precompute_reference(tol);  // kept under this key, yet not this problem's shape: computed here
  return false;
}

}  // namespace attn

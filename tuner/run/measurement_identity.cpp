#include "tuner/run/measurement_identity.hpp"

#include "tuner/run/leaderboard.hpp"

namespace attn {

nlohmann::json measurement_identity(const Spec& spec, const std::string& shape_selection, const DeviceInfo& device,
                                    const RunSettings& settings) {
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& s : source_identities(spec)) sources[s.backend] = s.sha256;
  nlohmann::json checks = settings.determinism.to_json();
  checks.erase("require");  // decides which results rank, not what they measured
  return {{"spec_sha256", spec.sha256},       {"sources", sources}, {"shape_selection", shape_selection},
          {"device", device.id},              {"seed", settings.seed},
          {"timing", settings.timing.to_json()}, {"checks", checks}};
}

}  // namespace attn

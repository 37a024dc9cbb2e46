#include "tuner/record/measurement_identity.hpp"

#include "tuner/record/leaderboard.hpp"

namespace attn {
namespace {

nlohmann::json identity(const std::string& spec_sha256, const std::vector<LeaderboardSource>& sources,
                        const std::string& shape_selection, const std::string& device_id, const RunSettings& settings) {
  nlohmann::json by_backend = nlohmann::json::object();
  for (const auto& s : sources) by_backend[s.backend] = s.sha256;
  nlohmann::json checks = settings.determinism.to_json();
  checks.erase("require");  // decides which results rank, not what they measured
  return {{"spec_sha256", spec_sha256},  {"sources", by_backend}, {"shape_selection", shape_selection},
          {"device", device_id},         {"seed", settings.seed}, {"timing", settings.timing.to_json()},
          {"measure", settings.measure}, {"checks", checks}};
}

}  // namespace

nlohmann::json measurement_identity(const Spec& spec, const std::string& shape_selection, const DeviceInfo& device,
                                    const RunSettings& settings) {
  return identity(spec.sha256, source_identities(spec), shape_selection, device.id, settings);
}

nlohmann::json measurement_identity(const Leaderboard& lb) {
  return identity(lb.spec_sha256, lb.sources, lb.shape_filter, lb.device.id, lb.settings);
}

}  // namespace attn

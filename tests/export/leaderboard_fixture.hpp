// Leaderboards written by hand for the export, gate and report tests: devices
// and times chosen so that every answer is known in advance.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn::test {

struct FixtureDevice {
  std::string name, backend, arch, vendor;
};

struct FixtureEntry {
  std::vector<std::pair<std::string, long long>> params;
  double median_ms = 0;  // with status "ok"
  std::string status = "ok";
  std::string reason;                                // for the others
  double noise = 0.004;                              // relative spread of the samples
  nlohmann::json checks = nlohmann::json::object();  // determinism checks, as `sweep --check determinism` records them
};

struct FixtureGroup {
  std::string kernel, shape;
  nlohmann::json shape_fields;
  std::vector<FixtureEntry> entries;
  std::string baseline_preset;  // a preset named after it is put on the first entry with these params
};

// A leaderboard of spec SPEC on DEVICE, built with the typed model,
// entries ranked the way `attn-tune sweep` ranks them.
nlohmann::json fixture_leaderboard(const FixtureDevice& device, const std::string& spec,
                                   const std::vector<FixtureGroup>& groups);

// Attention shape fields with the operation's defaults.
nlohmann::json attention_fields(const std::string& dtype, long long D, long long causal, long long Nq, long long Nkv);

extern const FixtureDevice kH200, kH100, kA100, kPocl;

}  // namespace attn::test

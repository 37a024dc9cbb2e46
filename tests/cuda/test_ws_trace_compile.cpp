// The measuring build of the warp-specialized prefill kernel (WS_TRACE=1, which
// scripts/gpu/ws_trace.sh launches) is in no swept spec: compiled here through NVRTC
// as that script specifies it, so that it keeps compiling, without spills, as the
// kernel changes. No GPU needed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

// A spec as ws_trace.sh writes it: the FA3 preset, OVERLAP as given (persistent with it, as the
// spec's constraints want), ITEM_PIPELINE 0 and 1, WS_TRACE 1, a workspace for the clocks.
std::string trace_spec(int overlap) {
  const auto spec_path = test::source_dir() / "configs/flash_attn_fwd_ws.json";
  nlohmann::json config = {{"WS_CONSUMERS", 2},      {"CONS_ROWS", 64},    {"BLOCK_N", 128},    {"STAGES", 2},
                           {"REG_SPLIT", 1},         {"OVERLAP", overlap}, {"PINGPONG", 0},     {"PERSISTENT", overlap},
                           {"CLUSTER", 1},           {"EXP_POLY", 0},      {"RESCALE_SKIP", 0}, {"LATE_PACK", 0},
                           {"L2_SECTION_KB", 16384}, {"ITEM_PIPELINE", 0}, {"CONS_TILES", 0},   {"WS_TRACE", 1}};
  nlohmann::json params;
  for (const auto& [k, v] : config.items()) params[k] = nlohmann::json::array({v});
  if (overlap == 1) params["ITEM_PIPELINE"] = {0, 1};
  nlohmann::json spec = {{"attn_tune_spec", 1},
                         {"extends", spec_path.string()},
                         {"name", "ws_trace"},
                         {"kernels",
                          {{"prefill_ws",
                            {{"params", params},
                             {"presets", {{"T", config}}},
                             {"baseline", "T"},
                             {"workspace_bytes", "16 + 8 * 3 * 2048 * 3"}}}}}};
  return spec.dump(1);
}

TEST(WsTrace, TheTracedBuildCompilesWithAndWithoutTheItemPipelineWithoutSpilling) {
  test::TempDir dir;
  const auto spec = dir.write("ws_trace.json", trace_spec(1));
  const auto r = test::run_cli({"compile", spec.string(), "-s", "fp16-d64-n1024", "--arch", "sm_90a", "--json", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 4000);
  const auto report = nlohmann::json::parse(r.out);
  int ok = 0;
  for (const auto& c : report.at("configs")) {
    ASSERT_EQ(c.at("status"), "ok") << c.dump().substr(0, 4000);
    EXPECT_NE(c.at("key").get<std::string>().find("WS_TRACE=1"), std::string::npos) << c.at("key");
    for (const auto& [name, res] : c.at("resources").items()) {
      EXPECT_EQ(res.at("spill_store_bytes").get<int>(), 0) << c.at("key") << " " << name;
      EXPECT_GT(res.at("registers").get<int>(), 0) << name;
    }
    ++ok;
  }
  EXPECT_EQ(ok, 2) << "ITEM_PIPELINE 0 and 1";
}

TEST(WsTrace, WithoutOverlapTheKernelSaysTheTraceNeedsIt) {
  test::TempDir dir;
  const auto spec = dir.write("ws_trace.json", trace_spec(0));
  const auto r = test::run_cli({"compile", spec.string(), "-s", "fp16-d64-n1024", "--arch", "sm_90a", "--json"});
  EXPECT_EQ(r.exit_code, 1) << "a configuration that fails to compile fails the command";
  EXPECT_NE((r.out + r.err).find("WS_TRACE must be 0, or 1 with OVERLAP 1"), std::string::npos) << r.out.substr(0, 4000);
}

}  // namespace
}  // namespace attn

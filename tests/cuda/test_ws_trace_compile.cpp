// The measuring build of the warp-specialized prefill kernel (WS_TRACE=1, which
// scripts/gpu/ws_trace.sh launches) is in no swept spec: compiled here through NVRTC
// from the spec that script compiles (scripts/bench/ws_trace_spec.py), so that it keeps
// compiling, without spills, as the kernel changes. No GPU needed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

// The spec ws_trace.sh compiles for SETTINGS (scripts/bench/ws_trace_spec.py writes it for both), in DIR.
std::string trace_spec(const test::TempDir& dir, const std::string& name, const std::string& settings) {
  const auto r = test::run_program(
      "python3", {(test::source_dir() / "scripts/bench/ws_trace_spec.py").string(), test::source_dir().string(), settings});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir.write(name, r.out).string();
}

TEST(WsTrace, TheTracedBuildCompilesWithAndWithoutTheItemPipelineWithoutSpilling) {
  test::TempDir dir;
  // the two builds docs/kernels/flash_attn_fwd_ws.md traced: overlap, persistent, with and without the pipeline across items
  // (with O stored by TMA, which every persistent configuration with room for it takes since)
  const std::string settings = "OVERLAP=1,PINGPONG=0,PERSISTENT=1,STORE_O_TMA=1,ITEM_PIPELINE=";
  const auto r =
      test::run_cli({"compile", trace_spec(dir, "ip0.json", settings + "0"), trace_spec(dir, "ip1.json", settings + "1"),
                     "-s", "fp16-d64-n1024", "--arch", "sm_90a", "--json", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 4000);
  const auto reports = nlohmann::json::parse(r.out).at("reports");  // one per spec
  ASSERT_EQ(reports.size(), 2u);
  std::set<std::string> keys;
  for (const auto& report : reports)
    for (const auto& c : report.at("configs")) {
      ASSERT_EQ(c.at("status"), "ok") << c.dump().substr(0, 4000);
      const auto key = c.at("key").get<std::string>();
      EXPECT_NE(key.find("WS_TRACE=1"), std::string::npos) << key;
      for (const auto& [name, res] : c.at("resources").items()) {
        EXPECT_EQ(res.at("spill_store_bytes").get<int>(), 0) << key << " " << name;
        EXPECT_GT(res.at("registers").get<int>(), 0) << name;
      }
      keys.insert(key);
    }
  ASSERT_EQ(keys.size(), 2u) << "ITEM_PIPELINE 0 and 1";
  EXPECT_NE(keys.begin()->find("ITEM_PIPELINE=0"), std::string::npos) << *keys.begin();
  EXPECT_NE(keys.rbegin()->find("ITEM_PIPELINE=1"), std::string::npos) << *keys.rbegin();
}

TEST(WsTrace, WithoutOverlapTheKernelSaysTheTraceNeedsIt) {
  test::TempDir dir;
  const auto spec = trace_spec(dir, "no_overlap.json", "OVERLAP=0,PINGPONG=0,PERSISTENT=0");
  const auto r = test::run_cli({"compile", spec, "-s", "fp16-d64-n1024", "--arch", "sm_90a", "--json"});
  EXPECT_EQ(r.exit_code, 1) << "a configuration that fails to compile fails the command";
  EXPECT_NE((r.out + r.err).find("WS_TRACE must be 0, or 1 with OVERLAP 1"), std::string::npos) << r.out.substr(0, 4000);
}

}  // namespace
}  // namespace attn

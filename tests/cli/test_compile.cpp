// `attn-tune compile`: every configuration of every CUDA spec shipped in
// configs/ compiles through NVRTC for sm_90 with a resource report, and a
// configuration written to spill is reported as spilling. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

nlohmann::json compile_json(const std::vector<std::string>& extra, int expected_exit) {
  std::vector<std::string> args = {"compile", "--arch", "sm_90", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err.substr(0, 4000);
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& entry(const nlohmann::json& report, const std::string& shape, const std::string& key) {
  for (const auto& c : report.at("configs"))
    if (c.at("shape") == shape && c.at("key") == key) return c;
  throw std::runtime_error("no " + shape + " " + key);
}

TEST(Compile, ReportsSpillsAndKeepsTheCompilerLog) {
  const auto report = compile_json({"tests/data/cuda_testbed.json", "--shape", "small"}, 1);
  const auto& clean = entry(report, "small", "WG=64,FAULT=0,SPILL=0").at("resources").at("testbed_attention");
  EXPECT_GT(clean.at("registers").get<int>(), 0);
  EXPECT_EQ(clean.at("spill_store_bytes").get<int>(), 0);
  EXPECT_GT(clean.at("theoretical_occupancy").get<double>(), 0);

  const auto& spilling = entry(report, "small", "WG=64,FAULT=0,SPILL=1").at("resources").at("testbed_attention");
  EXPECT_LE(spilling.at("registers").get<int>(), 64);
  EXPECT_GT(spilling.at("spill_store_bytes").get<int>(), 0) << spilling.dump();
  EXPECT_GT(spilling.at("spill_load_bytes").get<int>(), 0);

  const auto& broken = entry(report, "small", "WG=64,FAULT=1,SPILL=0");
  EXPECT_EQ(broken.at("status"), "compile_failed");
  EXPECT_NE(broken.at("log").get<std::string>().find("planted compile failure"), std::string::npos);
}

// --compiler-option reaches the compiler, after the spec's options, and the report says it was given.
TEST(Compile, ACompilerOptionReachesTheCompilerAndIsRecorded) {
  const auto report =
      compile_json({"tests/data/cuda_testbed.json", "--shape", "small", "--compiler-option=--no-such-nvrtc-option"}, 1);
  EXPECT_EQ(report.at("extra_options"), nlohmann::json::array({"--no-such-nvrtc-option"}));
  ASSERT_FALSE(report.at("configs").empty());
  for (const auto& c : report.at("configs")) {
    if (c.at("status") == "skipped") continue;
    EXPECT_EQ(c.at("status"), "compile_failed") << c.dump().substr(0, 2000);
  }
}

// A head dimension outside what a kernel takes leaves its space empty; the report
// names the kernel, the shape and the constraint, and nothing is compiled.
TEST(Compile, AHeadDimensionAKernelDoesNotTakeIsReportedWithItsConstraint) {
  const auto report = compile_json({"configs/flash_attn_fwd_wgmma.json", "--shape", "fp16-d80-n4096,D=84"}, 0);
  EXPECT_EQ(report.at("compiles").get<int>(), 0);
  ASSERT_EQ(report.at("exclusions").size(), 1u) << report.dump().substr(0, 2000);
  const auto& x = report.at("exclusions").at(0);
  EXPECT_EQ(x.at("kernel"), "prefill_wgmma");
  EXPECT_EQ(x.at("shape"), "fp16-d80-n4096[D=84]");
  EXPECT_EQ(x.at("reason"), "constraint `D % 8 == 0 && D >= 8 && D <= 256` is false");
}

std::vector<std::string> cuda_specs() {
  std::vector<std::string> specs;
  for (const auto& e : fs::directory_iterator(test::source_dir() / "configs")) {
    if (e.path().extension() != ".json") continue;
    // *_large specs are search spaces over a shipped kernel's knobs (thousands of
    // configurations of code its own spec compiles here); the GPU recording of
    // them (scripts/gpu/record_spaces.sh) is what compiles each one.
    if (e.path().stem().string().ends_with("_large")) continue;
    // Loaded, not read as JSON: a spec may take its sources from the file it extends.
    if (load_spec(e.path()).sources.contains("cuda")) specs.push_back("configs/" + e.path().filename().string());
  }
  // Every *_small spec after every other one: ctest starts them in this order, so a small spec's
  // configurations that its full spec shares are in the compile cache by then, not compiled twice at once.
  const auto is_small = [](const std::string& s) { return s.ends_with("_small.json"); };
  std::sort(specs.begin(), specs.end(), [&](const std::string& a, const std::string& b) {
    return std::pair(is_small(a), a) < std::pair(is_small(b), b);
  });
  return specs;
}

// One test per spec, so that CI logs move as each finishes and ctest spreads
// them over the cores; configurations a spec shares with its _small variant
// compile once, through the compile cache on disk (cuda_specs: the order).
//
// At NVRTC's fast-compile level: the front end, NVVM and ptxas each see every
// configuration (a static_assert, a shared-memory or register-limit error, a bad
// PTX instruction all fail it), in about a seventh of the time. Fully unrolled
// kernels spend 10-17 s each in NVVM otherwise (the sliding-window band kernel),
// most of CI's time. Registers are that level's; full optimization, the sweeps'
// level, is what the testbed test above reports spills at, and what the GPU
// runs under results/ compiled every configuration with.
constexpr const char* kFastCompile = "--compiler-option=--Ofast-compile=min";
class EveryCudaSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCudaSpec, CompilesEveryConfigurationForSm90WithAResourceReport) {
  const auto result = compile_json({GetParam(), kFastCompile}, 0);
  const auto& report = result;  // one spec: its report, not a list of them
  ASSERT_EQ(report.at("extra_options"), nlohmann::json::array({"--Ofast-compile=min"}));
  int ok = 0;
  for (const auto& c : report.at("configs")) {
    ASSERT_NE(c.at("status"), "compile_failed") << c.dump().substr(0, 4000);
    if (c.at("status") != "ok") continue;
    ++ok;
    for (const auto& [name, r] : c.at("resources").items()) {
      EXPECT_GT(r.at("registers").get<int>(), 0) << name;
      EXPECT_TRUE(r.contains("spill_store_bytes")) << name;
      EXPECT_TRUE(r.contains("theoretical_occupancy")) << name;
    }
  }
  EXPECT_GT(ok, 0);
  std::printf("%s: %d configurations compiled\n", GetParam().c_str(), ok);
}

TEST(Compile, ThereAreCudaSpecsToCompile) { EXPECT_GE(cuda_specs().size(), 4u); }

// "configs/flash_attn_fwd.json" -> "flash_attn_fwd": the test's name.
std::string spec_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shipped, EveryCudaSpec, ::testing::ValuesIn(cuda_specs()), spec_test_name);

}  // namespace
}  // namespace attn

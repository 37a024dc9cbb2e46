// Templated entries through NVRTC, no GPU needed: name expressions are
// instantiated and lowered to the symbols looked up in the image, and the
// shipped templated example (configs/templated_attention.json) compiles in
// every configuration with each instance's symbol in its resource report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

const char* kTemplatedSource = R"cu(
template <int N, bool TWICE>
__global__ void tile(float* p) { p[threadIdx.x % N] += TWICE ? 2.0f : 1.0f; }
extern "C" __global__ void plain(float* p) { p[0] = 0.0f; }
)cu";

TEST(NvrtcNameExpressions, EachInstanceIsLoweredToTheSymbolItHasInTheImage) {
  CompileRequest r;
  r.source_text = kTemplatedSource;
  r.entries = {"tile<8, true>", "tile<16, false>", "plain"};
  r.arch = "sm_90";
  const NvrtcResult out = nvrtc_compile(r);
  ASSERT_EQ(out.lowered_names.size(), 2u) << out.log;
  const std::string eight = out.symbol("tile<8, true>"), sixteen = out.symbol("tile<16, false>");
  EXPECT_EQ(eight.rfind("_Z", 0), 0u) << eight;  // an Itanium-mangled name
  EXPECT_NE(eight, sixteen);
  EXPECT_EQ(out.symbol("plain"), "plain");
  for (const std::string& symbol : {eight, sixteen, std::string("plain")}) {
    const PtxasFunction* f = out.ptxas.find(symbol);
    ASSERT_NE(f, nullptr) << symbol << "\n" << out.log;
    EXPECT_TRUE(f->is_entry) << symbol;
  }
  EXPECT_TRUE(is_name_expression("tile<8, true>"));
  EXPECT_FALSE(is_name_expression("plain"));
}

TEST(NvrtcNameExpressions, AnInstanceTheSourceCannotMakeIsACompileErrorWithTheLog) {
  CompileRequest r;
  r.source_text = kTemplatedSource;
  r.entries = {"tile<8>"};  // TWICE has no default
  r.arch = "sm_90";
  try {
    nvrtc_compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_FALSE(e.log().empty());
  }
}

TEST(TemplatedAttention, EveryConfigurationCompilesAndRecordsItsInstancesSymbol) {
  const auto r = test::run_cli({"compile", "configs/templated_attention.json", "--arch", "sm_90", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 4000);
  const auto report = nlohmann::json::parse(r.out);
  int ok = 0;
  for (const auto& c : report.at("configs")) {
    ASSERT_EQ(c.at("status"), "ok") << c.dump().substr(0, 4000);
    ++ok;
    ASSERT_EQ(c.at("resources").size(), 1u);
    for (const auto& [entry, res] : c.at("resources").items()) {
      EXPECT_EQ(entry.rfind("templated_attention<", 0), 0u) << entry;
      EXPECT_EQ(res.at("symbol").get<std::string>().rfind("_Z", 0), 0u) << res.dump();
      EXPECT_GT(res.at("registers").get<int>(), 0) << entry;
      EXPECT_EQ(res.at("spill_store_bytes").get<int>(), 0) << entry;
    }
  }
  EXPECT_GE(ok, 12);  // 3 shapes x (BLOCK_M, BLOCK_N) pairs the constraint keeps
}

}  // namespace
}  // namespace attn

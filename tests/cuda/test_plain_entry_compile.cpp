// Plain C++ __global__ entries (neither extern "C" nor a template) through
// NVRTC, no GPU needed: the entry's name is a name expression lowered to the
// mangled symbol looked up in the image and recorded in the resources;
// extern "C" entries keep their names; a name that matches nothing says so.
#include <gtest/gtest.h>

#include "tuner/backend/cuda/cuda_compile.hpp"
#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

const char* kPlainSource = R"cu(
__global__ void attn_fwd(const float* q, float* o, int n) { o[threadIdx.x % n] = q[0]; }
extern "C" __global__ void attn_c(float* o) { o[0] = 1.0f; }
namespace engine {
__global__ void attn_fwd(int* o) { o[0] = 2; }
}
__global__ void overloaded(float* o) { o[0] = 1.0f; }
__global__ void overloaded(int* o) { o[0] = 1; }
)cu";

CompileRequest plain_request(std::vector<std::string> entries) {
  CompileRequest r;
  r.source_path = "plain_entries.cu";  // the name errors give; the text is the source
  r.source_text = kPlainSource;
  r.entries = std::move(entries);
  r.arch = "sm_90";
  return r;
}

TEST(PlainCppEntry, ResolvesToItsLoweredNameAndTheResourcesRecordIt) {
  const NvrtcResult out = nvrtc_compile(plain_request({"attn_fwd", "engine::attn_fwd", "attn_c"}));
  EXPECT_EQ(out.symbol("attn_fwd"), "_Z8attn_fwdPKfPfi");
  EXPECT_EQ(out.symbol("engine::attn_fwd"), "_ZN6engine8attn_fwdEPi");
  EXPECT_EQ(out.symbol("attn_c"), "attn_c");  // extern "C": unchanged, no lowered name recorded
  EXPECT_FALSE(out.lowered_names.contains("attn_c"));
  for (const std::string entry : {"attn_fwd", "engine::attn_fwd", "attn_c"}) {
    const PtxasFunction* f = out.ptxas.find(out.symbol(entry));
    ASSERT_NE(f, nullptr) << entry << "\n" << out.log;
    EXPECT_TRUE(f->is_entry) << entry;
  }
  const KernelResources plain = entry_resources(out, "attn_fwd");
  EXPECT_EQ(plain.symbol, "_Z8attn_fwdPKfPfi");
  EXPECT_GT(plain.registers.value_or(0), 0) << out.log;
  EXPECT_FALSE(entry_resources(out, "attn_c").symbol.has_value());
}

TEST(PlainCppEntry, ANameThatMatchesNothingNamesTheEntryAndTheFile) {
  try {
    nvrtc_compile(plain_request({"attn_fwd", "attn_bwd"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'attn_bwd'"), std::string::npos) << what;
    EXPECT_NE(what.find("plain_entries.cu"), std::string::npos) << what;
    EXPECT_EQ(what.find("'attn_fwd'"), std::string::npos) << what;  // the entry that exists is not blamed
    EXPECT_FALSE(e.log().empty());
  }
}

TEST(PlainCppEntry, AnOverloadedNameIsACompileErrorNamingIt) {
  try {
    nvrtc_compile(plain_request({"overloaded"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("'overloaded'"), std::string::npos) << e.what();
    EXPECT_NE(e.log().find("overloaded"), std::string::npos) << e.log();
  }
}

}  // namespace
}  // namespace attn

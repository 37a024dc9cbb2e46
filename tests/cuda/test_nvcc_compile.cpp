// Sources with host code compiled by the toolkit's nvcc ("cuda_compiler":
// "nvcc"), no GPU needed: a .cu with a host main and launcher that NVRTC
// refuses compiles to a cubin with ptxas' registers, the plain C++ kernel's
// mangled name is found and recorded, the compile cache answers a second
// compile, and `attn-tune compile` reports it. Skipped, saying so, without nvcc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/backend/cuda/cuda_compile.hpp"
#include "tuner/backend/cuda/entry_symbols.hpp"
#include "tuner/backend/cuda/nvcc_compiler.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const fs::path kHostLauncher = "tests/data/kernels_as_they_are/host_launcher.cu";

#define SKIP_WITHOUT_NVCC()                                                                                                 \
  do {                                                                                                                      \
    if (!find_nvcc()) GTEST_SKIP() << "no nvcc ($ATTN_TUNE_NVCC, beside the CUDA toolkit, on PATH or /usr/local/cuda/bin)"; \
  } while (0)

CompileRequest host_launcher_request(const std::string& compiler) {
  CompileRequest r;
  r.source_path = test::source_dir() / kHostLauncher;
  r.defines = {{"HEAD_DIM", 32}, {"BLOCK", 64}};
  r.entries = {"attn_fwd"};
  r.arch = "sm_90";
  r.cuda_compiler = compiler;
  return r;
}

TEST(NvccCompile, AHostMainAndLauncherFailUnderNvrtcSayingHowToCompileThem) {
  try {
    cuda_compile(host_launcher_request("nvrtc"));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("\"cuda_compiler\": \"nvcc\""), std::string::npos) << e.what() << "\n" << e.log();
    EXPECT_NE(std::string(e.what()).find("host_launcher.cu"), std::string::npos) << e.what();
    EXPECT_FALSE(e.log().empty());
  }
}

TEST(NvccCompile, AHostMainAndLauncherCompileThroughNvccWithRegistersReported) {
  SKIP_WITHOUT_NVCC();
  const NvrtcResult out = cuda_compile(host_launcher_request("nvcc"));
  EXPECT_TRUE(out.is_cubin);
  EXPECT_FALSE(out.image.empty());
  EXPECT_EQ(out.arch, "sm_90");
  EXPECT_EQ(out.compiler_version.rfind("nvcc ", 0), 0u) << out.compiler_version;
  EXPECT_EQ(out.symbol("attn_fwd"), "_Z8attn_fwdPKfS0_S0_Pfiiiif") << out.log;
  const KernelResources res = entry_resources(out, "attn_fwd");
  EXPECT_GT(res.registers.value_or(0), 0) << out.log;
  EXPECT_EQ(res.spill_store_bytes, 0) << out.log;
  EXPECT_EQ(res.symbol, "_Z8attn_fwdPKfS0_S0_Pfiiiif");
}

TEST(NvccCompile, AnExternCEntryKeepsItsNameAndAMissingOneNamesTheFileAndTheKernels) {
  SKIP_WITHOUT_NVCC();
  CompileRequest r;
  r.source_path = "two_kernels.cu";
  r.source_text =
      "extern \"C\" __global__ void scale(float* p) { p[threadIdx.x] *= 2.0f; }\n"
      "__global__ void shift(float* p) { p[threadIdx.x] += 1.0f; }\n"
      "int main() { return 0; }\n";
  r.entries = {"scale", "shift"};
  r.arch = "sm_90";
  const NvrtcResult out = nvcc_compile(r);
  EXPECT_EQ(out.symbol("scale"), "scale");
  EXPECT_EQ(out.symbol("shift"), "_Z5shiftPf");
  r.entries = {"scale", "no_such_kernel"};
  try {
    nvcc_compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("two_kernels.cu has no kernel 'no_such_kernel'"), std::string::npos) << what;
    EXPECT_NE(what.find("_Z5shiftPf (shift)"), std::string::npos) << what;
  }
}

TEST(NvccCompile, ASyntaxErrorIsACompileErrorWithNvccsOutput) {
  SKIP_WITHOUT_NVCC();
  CompileRequest r;
  r.source_path = "broken.cu";
  r.source_text = "__global__ void k(float* p) { p[0] = }\n";
  r.entries = {"k"};
  r.arch = "sm_90";
  try {
    nvcc_compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("did not compile for sm_90"), std::string::npos) << e.what();
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
  }
}

TEST(NvccCompile, WithoutNvccTheCompileErrorSaysSo) {
  const char* before = std::getenv("ATTN_TUNE_NVCC");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  setenv("ATTN_TUNE_NVCC", "/nonexistent/nvcc", 1);
  try {
    cuda_compile(host_launcher_request("nvcc"));
    ADD_FAILURE() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("there is no nvcc ($ATTN_TUNE_NVCC is /nonexistent/nvcc)"), std::string::npos)
        << e.what();
  }
  if (saved) setenv("ATTN_TUNE_NVCC", saved->c_str(), 1);
  else unsetenv("ATTN_TUNE_NVCC");
}

TEST(NvccCompile, OptionsAreTheCubinTheArchPtxasReportDefinesIncludesThenTheSpecs) {
  CompileRequest r;
  r.include_dirs = {"/src/kernels"};
  r.defines = {{"BLOCK", 64}, {"HEAD_DIM", 128}};
  r.extra_options = {"--use_fast_math"};
  const std::vector<std::string> want = {"-cubin",     "-arch=sm_90a",   "-std=c++17",     "-Xptxas",        "-v",
                                         "-DBLOCK=64", "-DHEAD_DIM=128", "-I/src/kernels", "--use_fast_math"};
  EXPECT_EQ(nvcc_options(r, "sm_90a"), want);
  r.defines = {{"1BAD", 1}};
  EXPECT_THROW(nvcc_options(r, "sm_90"), CompileError);
}

TEST(NvccCompile, ASecondCompileIsACacheHitWithTheSameSymbolAndRegisters) {
  SKIP_WITHOUT_NVCC();
  test::TempDir dir;
  CompileCacheSettings settings;
  settings.dir = dir / "cache";
  configure_compile_cache(settings);
  const NvrtcResult first = cuda_compile(host_launcher_request("nvcc"));
  const NvrtcResult second = cuda_compile(host_launcher_request("nvcc"));
  configure_compile_cache(CompileCacheSettings{.enabled = false});
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.symbol("attn_fwd"), first.symbol("attn_fwd"));
  EXPECT_EQ(entry_resources(second, "attn_fwd").registers, entry_resources(first, "attn_fwd").registers);
}

TEST(NvccCompile, DemangledNamesDropTheParametersAndTheReturnType) {
  EXPECT_EQ(demangled_function_name("_Z8attn_fwdPKfS0_S0_Pfiiiif"), "attn_fwd");
  EXPECT_EQ(demangled_function_name("_ZN2ns4tileILi8ELb1EEEvPf"), "ns::tile<8, true>");
  EXPECT_EQ(demangled_function_name("_ZN12_GLOBAL__N_14kernEPf"), "(anonymous namespace)::kern");
  EXPECT_EQ(demangled_function_name("attn_c"), "");
}

TEST(NvccCompile, TheCliReportsTheNvccCompiledKernelsResourcesAndSymbol) {
  SKIP_WITHOUT_NVCC();
  const auto r = test::run_cli(
      {"compile", "tests/data/kernels_as_they_are/host_launcher.json", "--arch", "sm_90", "--json", "--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 4000);
  const auto report = nlohmann::json::parse(r.out);
  int compiled = 0;
  for (const auto& c : report.at("configs")) {
    ASSERT_EQ(c.at("status"), "ok") << c.dump();
    const auto& res = c.at("resources").at("attn_fwd");
    EXPECT_GT(res.at("registers").get<int>(), 0) << res.dump();
    EXPECT_EQ(res.at("symbol"), "_Z8attn_fwdPKfS0_S0_Pfiiiif") << res.dump();
    ++compiled;
  }
  EXPECT_EQ(compiled, 4);  // 2 shapes x BLOCK 32, 64
}

TEST(NvccSpec, ABadCompilerIsASpecErrorNamingTheFileAndTheField) {
  test::TempDir dir;
  const std::string spec = R"({"attn_tune_spec": 1, "name": "x", "operation": "attention",
    "sources": {"cuda": "k.cu"}, "cuda_compiler": "gcc",
    "shapes": {"s": {"B": 1, "Hq": 1, "Nq": 4, "D": 32}},
    "kernels": {"k": {"launches": [{"entry": "k", "grid": [1], "block": [32]}]}}})";
  dir.write("k.cu", "__global__ void k() {}\n");
  try {
    load_spec(dir.write("bad.json", spec));
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: cuda_compiler: unknown compiler 'gcc' (known: nvrtc, nvcc)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(load_spec(test::source_dir() / "tests/data/kernels_as_they_are/host_launcher.json").cuda_compiler, "nvcc");
}

}  // namespace
}  // namespace attn

// NVRTC through the on-disk compile cache, no GPU: a hit returns the same
// image, log and ptxas figures as the compile it stands for; a failure is
// cached with its log; an edited header compiles again.
#include <gtest/gtest.h>

#include <fstream>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/cache/cache_entry.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// A scratch folder with a kernel that includes a header beside it, and the process's cache in it.
struct CachedNvrtc : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("attn-tune-nvrtc-cache-" + std::to_string(::getpid()));

  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    write("scale.cuh", "#define SCALE 3.0f\n");
    write("k.cu", "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= SCALE; }\n");
    CompileCacheSettings s;
    s.dir = dir / "cache";
    configure_compile_cache(s);
  }
  void TearDown() override {
    configure_compile_cache(CompileCacheSettings{.enabled = false});
    fs::remove_all(dir);
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; }
  CompileRequest request(const std::string& file) const {
    CompileRequest r;
    r.source_path = dir / file;
    r.entries = {"k"};
    r.arch = "sm_90";
    return r;
  }
};

TEST_F(CachedNvrtc, ASecondCompileIsAHitWithTheSameImageLogAndRegisters) {
  const NvrtcResult first = nvrtc_compile(request("k.cu"));
  EXPECT_FALSE(first.from_cache);
  const NvrtcResult second = nvrtc_compile(request("k.cu"));
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.image, first.image);
  EXPECT_EQ(second.log, first.log);
  ASSERT_TRUE(second.ptxas.find("k"));
  EXPECT_EQ(second.ptxas.find("k")->registers, first.ptxas.find("k")->registers);
  EXPECT_EQ(second.options, first.options);
}

TEST_F(CachedNvrtc, AnEditedHeaderCompilesAgain) {
  nvrtc_compile(request("k.cu"));
  write("scale.cuh", "#define SCALE 4.0f\n");
  EXPECT_FALSE(nvrtc_compile(request("k.cu")).from_cache);
  EXPECT_TRUE(nvrtc_compile(request("k.cu")).from_cache);
}

TEST_F(CachedNvrtc, AFailureIsCachedWithItsLog) {
  write("bad.cu", "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float* p) { p[0] = undeclared; }\n");
  std::string first_log;
  try {
    nvrtc_compile(request("bad.cu"));
    FAIL() << "compiled";
  } catch (const CachedCompileError&) {
    FAIL() << "the first failure cannot come from the cache";
  } catch (const CompileError& e) {
    first_log = e.log();
  }
  EXPECT_NE(first_log.find("undeclared"), std::string::npos);
  try {
    nvrtc_compile(request("bad.cu"));
    FAIL() << "compiled";
  } catch (const CachedCompileError& e) {
    EXPECT_EQ(e.log(), first_log);
  }
}

}  // namespace
}  // namespace attn

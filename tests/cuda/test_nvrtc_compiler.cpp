// NVRTC compilation without a GPU or a driver: options, includes, errors with
// their logs, and ptxas' resource figures.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tuner/backend/cuda/cuda_device.hpp"
#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(ATTN_TUNE_CUDA_TEST_DATA) / "kernels" / name;
}

CompileRequest request(const std::string& file, std::vector<std::string> entries, std::string arch = "sm_90") {
  CompileRequest r;
  r.source_path = data(file);
  r.include_dirs = {std::filesystem::path(ATTN_TUNE_SOURCE_DIR) / "kernels"};
  r.entries = std::move(entries);
  r.arch = std::move(arch);
  return r;
}

TEST(NvrtcOptions, Golden) {
  CompileRequest r;
  r.include_dirs = {"/src/kernels", "/src/kernels/cuda"};
  r.defines = {{"BLOCK_M", 64}, {"HEAD_DIM", 128}, {"NEG", -3}};
  r.extra_options = {"--use_fast_math", "-lineinfo"};
  const auto opts = nvrtc_options(r, "sm_90a", {"/usr/local/cuda/include", "/usr/local/cuda/include/cccl"}, true);
  const std::vector<std::string> want = {
      "--gpu-architecture=sm_90a",
      "-std=c++17",
      "--ptxas-options=-v",
      "--no-cache",
      "-DBLOCK_M=64",
      "-DHEAD_DIM=128",
      "-DNEG=-3",
      "-I/src/kernels",
      "-I/src/kernels/cuda",
      "-I/usr/local/cuda/include",
      "-I/usr/local/cuda/include/cccl",
      "--use_fast_math",
      "-lineinfo",
  };
  EXPECT_EQ(opts, want);
  EXPECT_EQ(nvrtc_options(r, "sm_90", {}, false)[3], "-DBLOCK_M=64");  // no --no-cache
}

TEST(NvrtcCompile, CachedCompilationsStillReportResources) {
  // NVRTC 12.9+ caches compilations: without --no-cache the second compile of
  // the same source has no ptxas report at all.
  CompileRequest r;
  r.source_text = "extern \"C\" __global__ void twice(float* p) { p[threadIdx.x] += 3.0f; }\n";
  r.entries = {"twice"};
  r.arch = "sm_90";
  for (int i = 0; i < 3; ++i) {
    const NvrtcResult out = nvrtc_compile(r);
    ASSERT_NE(out.ptxas.find("twice"), nullptr) << "compile " << i << ": " << out.log;
    EXPECT_GT(out.ptxas.find("twice")->registers.value_or(0), 0);
  }
}

TEST(NvrtcOptions, DefineNamesMustBeIdentifiers) {
  for (const char* bad : {"1ABC", "A-B", "A=B", "", "X Y", "-DFOO"}) {
    CompileRequest r;
    r.defines = {{bad, 1}};
    EXPECT_THROW(nvrtc_options(r, "sm_90", {}, false), CompileError) << bad;
  }
}

TEST(NvrtcToolkit, IncludeDirsExistAndOverride) {
  const auto dirs = cuda_toolkit_include_dirs();
  ASSERT_FALSE(dirs.empty());
  bool has_fp16 = false;
  for (const auto& d : dirs) has_fp16 |= std::filesystem::exists(d / "cuda_fp16.h");
  EXPECT_TRUE(has_fp16);

  const std::string dir = dirs.front().string();
  ::setenv("ATTN_TUNE_CUDA_INCLUDE", ("/does/not/exist:" + dir).c_str(), 1);
  const auto overridden = cuda_toolkit_include_dirs();
  ::unsetenv("ATTN_TUNE_CUDA_INCLUDE");
  ASSERT_FALSE(overridden.empty());
  EXPECT_EQ(overridden.front().string(), dir);  // missing dirs are dropped
}

TEST(NvrtcCompile, DefinesAndSharedHeader) {
  CompileRequest r = request("defines.cu", {"scale_rows", "add_one"});
  r.defines = {{"BLOCK_M", 128}, {"HEAD_DIM", 64}};
  const NvrtcResult out = nvrtc_compile(r);
  EXPECT_EQ(out.arch, "sm_90");
  EXPECT_TRUE(out.is_cubin);
  ASSERT_GT(out.image.size(), 4u);
  EXPECT_EQ(std::string(out.image.data() + 1, 3), "ELF");  // a CUBIN is an ELF file
  EXPECT_GT(out.compile_ms, 0.0);
  EXPECT_NE(out.log.find("ptxas info"), std::string::npos) << out.log;
  const PtxasFunction* f = out.ptxas.find("scale_rows");
  ASSERT_NE(f, nullptr) << out.log;
  EXPECT_EQ(f->smem_bytes, 512);  // float tile[BLOCK_M] with BLOCK_M = 128: the -D took effect
  EXPECT_GT(f->registers.value_or(0), 0);

  r.defines = {{"BLOCK_M", 32}, {"HEAD_DIM", 64}};
  EXPECT_EQ(nvrtc_compile(r).ptxas.find("scale_rows")->smem_bytes, 128);
}

TEST(NvrtcCompile, MissingDefineIsACompileErrorWithLog) {
  CompileRequest r = request("defines.cu", {"scale_rows"});  // no HEAD_DIM: #error
  try {
    nvrtc_compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("HEAD_DIM must be defined"), std::string::npos) << e.log();
  }
}

TEST(NvrtcCompile, SourceTextAndSm90a) {
  CompileRequest r;
  r.source_text = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
  r.entries = {"k"};
  r.arch = "sm_90a";
  const NvrtcResult out = nvrtc_compile(r);
  EXPECT_EQ(out.arch, "sm_90a");
  EXPECT_EQ(out.ptxas.find("k")->arch, "sm_90a");
  // The arch argument wins over the request's.
  EXPECT_EQ(nvrtc_compile(r, "sm_80").arch, "sm_80");
}

TEST(NvrtcCompile, PtxTarget) {
  CompileRequest r;
  r.source_text = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
  r.entries = {"k"};
  r.arch = "compute_90";
  const NvrtcResult out = nvrtc_compile(r);
  EXPECT_FALSE(out.is_cubin);
  const std::string ptx(out.image.data());
  EXPECT_NE(ptx.find(".entry k"), std::string::npos);
  r.entries = {"absent"};
  EXPECT_THROW(nvrtc_compile(r), CompileError);
}

TEST(NvrtcCompile, SyntaxErrorNamesTheLine) {
  try {
    nvrtc_compile(request("syntax_error.cu", {"broken"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("syntax_error.cu"), std::string::npos) << e.what();
    EXPECT_NE(e.log().find("syntax_error.cu(6): error"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("expected a \";\""), std::string::npos) << e.log();
  }
}

TEST(NvrtcCompile, UndeclaredIdentifierNamesTheLine) {
  try {
    nvrtc_compile(request("undeclared.cu", {"uses_unknown"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("undeclared.cu(5): error"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("not_declared_anywhere"), std::string::npos) << e.log();
  }
}

TEST(NvrtcCompile, InvalidOptionOrArch) {
  CompileRequest r = request("spill.cu", {"simple"});
  r.extra_options = {"--no-such-option"};
  try {
    nvrtc_compile(r);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("--no-such-option"), std::string::npos) << e.log();
  }
  r.extra_options.clear();
  r.arch = "sm_1";
  EXPECT_THROW(nvrtc_compile(r), CompileError);
  r.arch.clear();
  EXPECT_THROW(nvrtc_compile(r), UsageError);
}

TEST(NvrtcCompile, MissingEntryIsACompileError) {
  try {
    nvrtc_compile(request("spill.cu", {"simple", "no_such_kernel"}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos) << e.what();
  }
}

TEST(NvrtcCompile, MissingSourceFile) {
  CompileRequest r = request("no_such_file.cu", {"k"});
  EXPECT_THROW(nvrtc_compile(r), Error);
}

TEST(NvrtcCompile, SpillsAndStackFrameAreReported) {
  const NvrtcResult out = nvrtc_compile(request("spill.cu", {"dynamic_index", "register_pressure", "simple"}));
  const KernelResources dyn = resources_from_ptxas(out.ptxas, "dynamic_index");
  EXPECT_GT(dyn.private_mem_bytes.value_or(0), 0) << out.log;  // the local array lives on the stack
  const KernelResources pressure = resources_from_ptxas(out.ptxas, "register_pressure");
  EXPECT_GT(pressure.spill_store_bytes.value_or(0), 0) << out.log;
  EXPECT_GT(pressure.spill_load_bytes.value_or(0), 0) << out.log;
  EXPECT_LE(pressure.registers.value_or(999), 64);  // __launch_bounds__(1024, 1)
  const KernelResources simple = resources_from_ptxas(out.ptxas, "simple");
  EXPECT_EQ(simple.spill_store_bytes, 0);
  EXPECT_EQ(simple.spill_load_bytes, 0);
  EXPECT_EQ(simple.private_mem_bytes, 0);
}

TEST(CompileOffline, ProgramFromPtxas) {
  CompileRequest r = request("defines.cu", {"scale_rows", "add_one"});
  r.defines = {{"BLOCK_M", 64}, {"HEAD_DIM", 64}};
  auto program = compile_cuda_offline(r);
  ASSERT_NE(program, nullptr);
  EXPECT_GT(program->compile_ms(), 0.0);
  EXPECT_NE(program->build_log().find("scale_rows"), std::string::npos);
  const KernelResources res = program->resources("scale_rows");
  EXPECT_GT(res.registers.value_or(0), 0);
  EXPECT_EQ(res.static_local_bytes, 256);
  EXPECT_EQ(res.private_mem_bytes, 0);
  EXPECT_EQ(res.spill_store_bytes, 0);
  EXPECT_THROW(program->resources("nope"), BackendError);

  const auto* cuda = dynamic_cast<const CudaProgram*>(program.get());
  ASSERT_NE(cuda, nullptr);
  EXPECT_FALSE(cuda->loaded());
  EXPECT_EQ(cuda->arch(), "sm_90");

  r.arch.clear();
  EXPECT_THROW(compile_cuda_offline(r), UsageError);
}

TEST(NvrtcVersion, IsThirteenOrLater) {
  const std::string v = nvrtc_version();
  EXPECT_NE(v, "unknown");
  EXPECT_GE(std::stoi(v), 12);
}

}  // namespace
}  // namespace attn

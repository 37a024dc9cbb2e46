#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/source_identity.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// kernels/k.cu includes a header beside it, one through the include dir (which
// includes another), one twice, a system header and one that exists nowhere.
struct Tree {
  test::TempDir dir;
  fs::path source, local, shared, nested;
  Tree() {
    fs::create_directories(dir / "kernels/cuda/ptx");
    fs::create_directories(dir / "kernels/common");
    source = dir.write("kernels/cuda/k.cu",
                       "#include <cuda_fp16.h>\n"
                       "#include \"common/params.h\"\n"
                       "  #  include \"local.cuh\"\n"
                       "#if FEATURE\n#include \"cuda/ptx/mma.cuh\"\n#endif\n"
                       "#include \"common/params.h\"\n"
                       "#include \"nowhere.h\"\n"
                       "/* #include \"commented.h\" is not a directive */\n"
                       "__global__ void k() {}\n");
    local = dir.write("kernels/cuda/local.cuh", "#define LOCAL 1\n");
    shared = dir.write("kernels/common/params.h", "struct params { int n; };\n");
    nested = dir.write("kernels/cuda/ptx/mma.cuh", "#include \"shared.cuh\"\n");
    dir.write("kernels/cuda/ptx/shared.cuh", "#define SHARED 1\n");
  }
  SourceIdentity identity() const { return source_identity(source, {dir / "kernels"}); }
};

TEST(SourceIdentity, ListsTheSourceThenEveryIncludedFileOnceInIncludeOrder) {
  Tree t;
  const SourceIdentity id = t.identity();
  std::vector<fs::path> paths;
  for (const auto& f : id.files) paths.push_back(f.path);
  const std::vector<fs::path> expected = {t.source, t.shared.lexically_normal(), t.local.lexically_normal(),
                                          t.nested.lexically_normal(),
                                          (t.dir / "kernels/cuda/ptx/shared.cuh").lexically_normal()};
  EXPECT_EQ(paths, expected);
  for (const auto& f : id.files) EXPECT_EQ(f.sha256, sha256_file(f.path)) << f.path;
}

TEST(SourceIdentity, ChangingAnIncludedHeaderChangesTheIdentityAndOnlyThatFilesHash) {
  Tree t;
  const SourceIdentity before = t.identity();
  t.dir.write("kernels/cuda/ptx/shared.cuh", "#define SHARED 2\n");
  const SourceIdentity after = t.identity();
  EXPECT_NE(before.sha256, after.sha256);
  ASSERT_EQ(before.files.size(), after.files.size());
  for (std::size_t i = 0; i + 1 < before.files.size(); ++i) EXPECT_EQ(before.files[i].sha256, after.files[i].sha256);
  EXPECT_NE(before.files.back().sha256, after.files.back().sha256);
}

TEST(SourceIdentity, IsTheSameForTheSameBytesWhereverTheTreeLies) {
  Tree a, b;
  EXPECT_EQ(a.identity().sha256, b.identity().sha256);
  b.dir.write("kernels/cuda/k.cu", "__global__ void k() {}\n");
  EXPECT_NE(a.identity().sha256, b.identity().sha256);
}

TEST(SourceIdentity, ResolvesAnIncludeBesideTheIncludingFileBeforeTheIncludeDirs) {
  Tree t;
  // common/params.h also exists beside the source: that one is what the compiler reads.
  fs::create_directories(t.dir / "kernels/cuda/common");
  const fs::path beside = t.dir.write("kernels/cuda/common/params.h", "struct params { long n; };\n");
  const SourceIdentity id = t.identity();
  ASSERT_GE(id.files.size(), 2u);
  EXPECT_EQ(id.files[1].path, beside.lexically_normal());
}

TEST(SourceIdentity, FollowsAnAngledIncludeFoundInTheIncludeDirsAndAHeaderIncludingTheSourceBackEndsThere) {
  Tree t;
  t.dir.write("kernels/common/angled.h", "#include \"cuda/k.cu\"  // back to the source: a cycle\n");
  t.dir.write("kernels/cuda/k.cu", "#include <common/angled.h>\n#include <cuda_fp16.h>\n");
  const SourceIdentity id = t.identity();
  ASSERT_EQ(id.files.size(), 2u);  // the source once, the angled header; cuda_fp16.h is the compiler's own
  EXPECT_EQ(id.files[1].path, (t.dir / "kernels/common/angled.h").lexically_normal());
}

TEST(SourceIdentity, AnUnreadableSourceIsAnErrorNamingIt) {
  test::TempDir dir;
  try {
    source_identity(dir / "missing.cu", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.cu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attn

#include <gtest/gtest.h>

#include "tuner/backend/opencl/build_log.hpp"

namespace attn {
namespace {

TEST(BuildLog, PoclsCacheFileIsReplacedByTheUsersSource) {
  const std::string log =
      "/root/.cache/pocl/kcache/tempfile_nSU7aQ.cl:17:24: error: expected ';' after expression\n"
      "    o[0] = 1.0f }\n"
      "1 error generated.";
  const std::string mapped = attribute_build_log(log, "kernels/opencl/my kernel.cl");
  EXPECT_EQ(mapped.find("tempfile"), std::string::npos) << mapped;
  EXPECT_EQ(mapped.rfind("kernels/opencl/my kernel.cl:17:24: error", 0), 0u) << mapped;
  EXPECT_NE(mapped.find("1 error generated."), std::string::npos);
}

TEST(BuildLog, OtherDriversStandInNamesAreReplacedAndRealHeadersKept) {
  const std::string log = "<kernel>:3:1: error: a\n<source>:4:2: warning: b\n/usr/include/x.h:9:1: note: c";
  const std::string mapped = attribute_build_log(log, "k$1.cl");
  EXPECT_EQ(mapped, "k$1.cl:3:1: error: a\nk$1.cl:4:2: warning: b\n/usr/include/x.h:9:1: note: c");
}

}  // namespace
}  // namespace attn

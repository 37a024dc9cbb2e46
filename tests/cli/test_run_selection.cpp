// Every subcommand resolves --kernel and --shape the same way, and refuses a
// selection that names nothing with exit code 2 and the name.
#include <gtest/gtest.h>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(RunSelection, AnUnknownKernelIsRefusedAlikeBySweepCompileBenchAndDeterminism) {
  const std::string expected = "tests/data/testbed.json: --kernel: no kernel named 'nosuch' (kernels: naive)";
  for (const char* command : {"sweep", "compile", "bench", "determinism"}) {
    const auto r = run_cli({command, "tests/data/testbed.json", "--kernel", "nosuch", "--device", "opencl:0:0"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, expected)) << command << ": " << r.err;
  }
}

TEST(RunSelection, AnEmptyKernelNameIsAUsageError) {
  for (const char* command : {"sweep", "compile"}) {
    const auto r = run_cli({command, "tests/data/testbed.json", "--kernel", "", "--device", "opencl:0:0"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--kernel: an empty kernel name selects nothing")) << command << ": " << r.err;
  }
}

TEST(RunSelection, AKernelThatRunsNoneOfTheSelectedShapesIsAUsageError) {
  const auto r = run_cli({"sweep", "tests/data/nothing_runs.json", "--kernel", "naive", "--shape", "d64"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--kernel naive runs none of the selected shapes (d64); its shapes: d96")) << r.err;
}

TEST(RunSelection, AShapeSelectionNoKernelRunsIsAUsageError) {
  for (const char* command : {"sweep", "compile"}) {
    const auto r = run_cli({command, "tests/data/nothing_runs.json", "--shape", "d64", "--device", "opencl:0:0"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "no kernel runs the selected shapes (d64)")) << command << ": " << r.err;
  }
}

TEST(RunSelection, CompileOfSeveralSpecsNeedsTheKernelInOneOfThem) {
  const auto r = run_cli(
      {"compile", "tests/data/testbed.json", "tests/data/faults.json", "--kernel", "nosuch", "--device", "opencl:0:0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--kernel: no kernel named 'nosuch' in any of the 2 specs")) << r.err;
}

}  // namespace
}  // namespace attn

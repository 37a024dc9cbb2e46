// A run in which no configuration ended `ok` is a failure (exit 1) that says
// why: counts per status, the first reasons, which kernel cannot run which
// shape; a source that does not compile stops the sweep after its first
// configurations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

const std::vector<std::string> kQuickTiming = {"--min-samples", "2", "--max-time", "0.01", "--device", "opencl:0:0"};

test::CommandResult sweep(const std::string& spec, const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep", spec, "--out", out.string()};
  args.insert(args.end(), kQuickTiming.begin(), kQuickTiming.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_cli(args);
}

TEST(NothingRan, ASweepWhoseEveryConfigurationIsExcludedExitsOneNamingTheConstraint) {
  test::TempDir dir;
  const auto r = sweep("tests/data/nothing_runs.json", dir / "lb.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no configuration ran ok")) << r.err;
  EXPECT_TRUE(contains(r.err, "kernel naive cannot run shape d96: constraint `D == 64 || D == 128` is false")) << r.err;
}

TEST(NothingRan, KernelsWithoutASourceForTheBackendAreSummarisedInOneLine) {
  test::TempDir dir;
  const auto r = sweep("tests/data/nothing_runs.json", dir / "lb.json");
  EXPECT_TRUE(contains(r.err, "not run: 1 kernel with no opencl source: cuda_only")) << r.err;
  EXPECT_FALSE(contains(r.out, "cuda_only")) << "no empty table for a kernel that cannot run here:\n" << r.out;
}

TEST(NothingRan, ASweepWhoseEveryConfigurationIsIncorrectExitsOneWithTheCounts) {
  test::TempDir dir;
  const auto r = sweep("tests/data/all_fail.json", dir / "lb.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no configuration ran ok (2 incorrect)")) << r.err;
  EXPECT_TRUE(contains(r.err, "first incorrect: naive/small WG=16,FAULT=2,REPEAT=1: rel_l2")) << r.err;
}

TEST(NothingRan, ABenchWithNoOkShapeExitsOneWithTheReason) {
  const auto r = test::run_cli({"bench", "tests/data/all_fail.json", "--set", "WG=16,FAULT=3,REPEAT=1", "--min-samples", "2",
                                "--max-time", "0.01", "--device", "opencl:0:0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no configuration ran ok (1 incorrect)")) << r.err;
}

TEST(NothingRan, ASourceThatDoesNotCompileIsReportedOnceAndStopsTheSweep) {
  test::TempDir dir;
  const auto r = sweep("tests/data/does_not_compile.json", dir / "lb.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the source does not compile: the first 3 configurations failed with the same error"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "--keep-going")) << r.err;
  // The compiler's diagnostic points at the user's file, not the OpenCL
  // implementation's temporary copy of it.
  EXPECT_TRUE(contains(r.err, "does_not_compile.cl:2:")) << r.err;
  EXPECT_FALSE(contains(r.err, "tempfile_")) << r.err;
  const auto lb = nlohmann::json::parse(read_text_file(dir / "lb.json"));
  EXPECT_EQ(lb.at("groups")[0].at("entries").size(), 3u) << "stopped after the first 3 of 7 configurations";
}

TEST(NothingRan, KeepGoingCompilesEveryConfigurationOfABrokenSource) {
  test::TempDir dir;
  const auto r = sweep("tests/data/does_not_compile.json", dir / "lb.json", {"--keep-going"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no configuration ran ok (7 compile_failed)")) << r.err;
}

}  // namespace
}  // namespace attn

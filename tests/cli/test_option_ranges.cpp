// Numbers that make no sense are usage errors (exit 2) naming the option or the
// field and the limit; nothing wraps.
#include <gtest/gtest.h>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(OptionRanges, NonPositiveNoiseWatchdogOrSampleCountsAreUsageErrors) {
  const std::vector<std::vector<std::string>> cases = {{"--max-noise", "-1"},
                                                       {"--max-noise", "0"},
                                                       {"--watchdog", "0"},
                                                       {"--min-samples", "0", "--max-samples", "0"},
                                                       {"--min-samples", "20", "--max-samples", "10"}};
  for (const auto& extra : cases) {
    std::vector<std::string> args = {"sweep", "tests/data/testbed.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra[1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, extra[0])) << r.err;
  }
}

TEST(OptionRanges, AShapeIntegerBeyond32BitsIsRefusedNotWrapped) {
  for (const std::string value : {"Nq=99999999999", "Nkv=4294967296", "Nq=99999999999999999999"}) {
    const auto r = run_cli({"sweep", "tests/data/testbed.json", "--shape", value});
    EXPECT_EQ(r.exit_code, 2) << value << ": " << r.err;
    EXPECT_TRUE(contains(r.err, value)) << r.err;
    EXPECT_TRUE(contains(r.err, "2147483647")) << r.err;
    EXPECT_FALSE(contains(r.err, "1215752191")) << r.err;
  }
}

TEST(OptionRanges, AShapeIntegerBeyond32BitsInASpecNamesTheField) {
  test::TempDir dir;
  const auto spec = dir.write("big.json", R"({"attn_tune_spec": 1, "name": "x", "operation": "attention",
    "sources": {"opencl": ")" + (test::source_dir() / "tests/data/attention_testbed.cl").string() +
                                              R"("},
    "shapes": {"s": {"B": 1, "Hq": 1, "Nq": 4294967296, "D": 64}},
    "kernels": {"k": {"params": {"X": [1]}, "launches": [{"entry": "e", "grid": ["1"], "block": ["1"]}]}}})");
  const auto r = run_cli({"sweep", spec.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, spec.string() + ": shapes.s.Nq: out of range")) << r.err;
}

TEST(OptionRanges, CompileForAnUnknownArchitectureIsAUsageErrorListingThePattern) {
  const auto r = run_cli({"compile", "tests/data/testbed.json", "--arch", "banana"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "banana")) << r.err;
  EXPECT_TRUE(contains(r.err, "sm_XX")) << r.err;
}

TEST(OptionRanges, CompileForAnArchitectureNvrtcDoesNotKnowIsAUsageErrorListingWhatItKnows) {
  const auto r = run_cli({"compile", "tests/data/testbed.json", "--arch", "sm_11"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "'sm_11' is not an architecture this NVRTC compiles for")) << r.err;
  EXPECT_TRUE(contains(r.err, "sm_90")) << "the list NVRTC gave: " << r.err;
}

}  // namespace
}  // namespace attn

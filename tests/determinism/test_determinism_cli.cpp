// `attn-tune determinism` (the determinism matrix, --quick on PoCL) and the sweep's
// --check / --require options, end to end through the binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

const std::string kSpec = "tests/data/determinism/decode_modes.json";

TEST(DeterminismCli, QuickMatrixPassesTheDeterministicMode) {
  test::TempDir dir;
  const auto out = dir / "report.json";
  const auto r = run_cli({"determinism", kSpec, "-k", "decode_split", "--preset", "deterministic", "--quick", "--device",
                          "opencl:0:0", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "determ.")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 points: 4 passed, 0 failed, 0 incorrect, 0 skipped")) << r.out;
  const auto report = nlohmann::json::parse(read_text_file(out));
  EXPECT_EQ(report.at("schema"), "attn-tune.determinism/1");
  EXPECT_EQ(report.at("config").at("preset"), "deterministic");
  EXPECT_EQ(report.at("axes").at("B"), (std::vector<int>{1, 2, 8, 33}));
  ASSERT_EQ(report.at("points").size(), 4u);
  for (const auto& p : report.at("points")) {
    EXPECT_EQ(p.at("status"), "passed") << p.dump(2);
    EXPECT_EQ(p.at("fields").at("D"), 64);
    EXPECT_EQ(p.at("verify").at("passed"), true);
    // Cross-run on every batch size of the matrix.
    EXPECT_EQ(p.at("checks").at("details").at("cross_run").at("shapes").size(), 4u) << p.dump(2);
  }
  EXPECT_EQ(report.at("points")[3].at("point").at("GQA"), 2);
  EXPECT_EQ(report.at("points")[3].at("fields").at("Hkv"), 2);
  EXPECT_EQ(report.at("points")[3].at("point").at("sinks"), true);
}

TEST(DeterminismCli, MatrixFailsTheBatchDependentModeAndSaysWhere) {
  const auto r = run_cli({"determinism", kSpec, "-k", "decode_split", "--set", "DEC_SPLIT_MODE=1", "--quick", "--gqa", "1",
                          "--features", "none", "--device", "opencl:0:0"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, " NO ")) << r.out;
  EXPECT_TRUE(contains(r.out, "(B=1) vs")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 points: 0 passed, 1 failed")) << r.out;
}

TEST(DeterminismCli, PointsTheKernelExcludesAreSkippedWithTheReason) {
  const auto r = run_cli({"determinism", kSpec, "-k", "decode_only", "--set", "DEC_WG_SIZE=16,DEC_DV_TILE=0", "--shape",
                          "Nq=2", "--quick", "--gqa", "1", "--features", "none", "--device", "opencl:0:0", "--json"});
  EXPECT_EQ(r.exit_code, 1) << "nothing could run: " << r.out << r.err;
  const auto report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report.at("points").size(), 1u);
  EXPECT_EQ(report.at("points")[0].at("status"), "skipped");
  EXPECT_EQ(report.at("points")[0].at("reason"), "skipped: constraint `Nq == 1` is false");
}

TEST(DeterminismCli, SweepTakesCheckAndRequire) {
  const auto help = run_cli({"sweep", "--help"});
  EXPECT_TRUE(contains(help.out, "--check")) << help.out;
  EXPECT_TRUE(contains(help.out, "--require")) << help.out;
  const auto bad = run_cli({"sweep", kSpec, "--require", "deterministic,fast"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(contains(bad.err, "unknown check 'fast'")) << bad.err;
  const auto bad_check = run_cli({"sweep", kSpec, "--check", "speed"});
  EXPECT_EQ(bad_check.exit_code, 2) << bad_check.err;
}

}  // namespace
}  // namespace attn

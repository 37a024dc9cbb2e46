// attn-tune gate end to end on PoCL: real sweeps of the testbed kernel
// (tests/data/export/gate*.json, about a second each), compared through the CLI.
#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "tests/export/leaderboard_fixture.hpp"
#include "tests/export/markup_check.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string spec(const std::string& name) { return test::data("export/" + name).string(); }

// Sweeps SPEC_NAME on PoCL into OUT: two configurations, tiny shape, short sampling.
std::string sweep(const std::string& spec_name, const std::filesystem::path& out) {
  const auto r =
      run_cli({"sweep", spec(spec_name), "--device", "opencl:0:0", "--out", out.string(), "--max-time", "0.1", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out.string();
}

struct JunitCounts {
  long tests = -1, failures = -1, testcases = 0, failure_elements = 0, slower = 0;
};

JunitCounts parse_junit(const std::string& xml) {
  JunitCounts c;
  EXPECT_EQ(test::markup_problems(xml), "") << xml;
  std::smatch m;
  if (std::regex_search(xml, m, std::regex("<testsuites [^>]*tests=\"(\\d+)\" failures=\"(\\d+)\""))) {
    c.tests = std::stol(m[1]);
    c.failures = std::stol(m[2]);
  }
  auto count = [&](const char* pattern) {
    const std::regex re(pattern);
    return static_cast<long>(std::distance(std::sregex_iterator(xml.begin(), xml.end(), re), std::sregex_iterator()));
  };
  c.testcases = count("<testcase ");
  c.failure_elements = count("<failure ");
  c.slower = count("<failure type=\"SLOWER\"");
  return c;
}

TEST(GatePocl, IdenticalCodeIsNeverSlower) {
  // Ten pairs of sweeps of the same code: noise and a busy machine must not
  // fail the gate. As in CI, the gate may measure again (--device), in pairs
  // with the baseline's code (--baseline-spec), so that a machine busier now
  // than during the baseline's sweep does not count; on a CPU up to 5 pairs,
  // as docs/gate.md advises where one measurement's median moves by tens of
  // percent from one tenth of a second to the next.
  for (int pair = 0; pair < 10; ++pair) {
    SCOPED_TRACE(fmt::format("pair {}", pair));
    test::TempDir dir;
    const auto base = sweep("gate.json", dir / "base.json"), cand = sweep("gate.json", dir / "cand.json");
    const auto r = run_cli({"gate", "--baseline", base, "--candidate", cand, "--device", "opencl:0:0", "--baseline-spec",
                            spec("gate.json"), "--remeasure", "5", "--junit", (dir / "gate.xml").string(), "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const JunitCounts junit = parse_junit(read_text_file(dir / "gate.xml"));
    EXPECT_EQ(junit.tests, 2);
    EXPECT_EQ(junit.testcases, 2);
    EXPECT_EQ(junit.slower, 0) << r.out;
    EXPECT_EQ(junit.failures, 0) << r.out;
  }
}

TEST(GatePocl, MoreWorkIsSlower) {
  // gate_slow.json: the same configurations, with REPEAT = 8 (eight times the score work).
  test::TempDir dir;
  const auto base = sweep("gate.json", dir / "base.json"), slow = sweep("gate_slow.json", dir / "slow.json");
  const auto r = run_cli({"gate", "--baseline", base, "--candidate", slow, "--junit", (dir / "gate.xml").string(),
                          "--markdown", (dir / "gate.md").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "FAIL: 2 of 2 comparisons failed (2 SLOWER)")) << r.out;
  const JunitCounts junit = parse_junit(read_text_file(dir / "gate.xml"));
  EXPECT_EQ(junit.tests, 2);
  EXPECT_EQ(junit.failures, 2);
  EXPECT_EQ(junit.testcases, 2);
  EXPECT_EQ(junit.slower, 2);
  const std::string md = read_text_file(dir / "gate.md");
  EXPECT_TRUE(contains(md, "## attn-tune gate: FAIL")) << md;
  EXPECT_TRUE(contains(md, "| **SLOWER** | naive / tiny | 1 | `WG=")) << md;

  // Measured again in pairs with the baseline's code, a real slowdown stays SLOWER.
  const auto paired = run_cli({"gate", "--baseline", base, "--candidate", slow, "--device", "opencl:0:0", "--baseline-spec",
                               spec("gate.json"), "-q"});
  EXPECT_EQ(paired.exit_code, 1) << paired.out << paired.err;
  EXPECT_TRUE(contains(paired.out, "FAIL: 2 of 2 comparisons failed (2 SLOWER)")) << paired.out;
  EXPECT_TRUE(contains(paired.out, "3x + baseline 3x")) << paired.out;

  // --baseline-spec must be the code the baseline was swept from.
  const auto wrong = run_cli({"gate", "--baseline", base, "--candidate", slow, "--device", "opencl:0:0", "--baseline-spec",
                              spec("gate_slow.json")});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(contains(wrong.err, "--baseline-spec is not the code")) << wrong.err;

  // Measured now (--device) with the baseline's settings: the fast code against the slow baseline is FASTER.
  const auto now = run_cli({"gate", "--baseline", slow, "--device", "opencl:0:0", "--spec", spec("gate.json"), "-q"});
  EXPECT_EQ(now.exit_code, 0) << now.out << now.err;
  EXPECT_TRUE(contains(now.out, "PASS: 2 comparisons: 2 FASTER")) << now.out;
}

TEST(GatePocl, AWrongResultIsBrokenWhateverItsSpeed) {
  test::TempDir dir;
  const auto base = sweep("gate.json", dir / "base.json");
  const auto r = run_cli({"gate", "--baseline", base, "--device", "opencl:0:0", "--spec", spec("gate_broken.json"),
                          "--junit", (dir / "gate.xml").string(), "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "BROKEN naive / tiny / WG=16: ok -> incorrect")) << r.out;
  const JunitCounts junit = parse_junit(read_text_file(dir / "gate.xml"));
  EXPECT_EQ(junit.failures, 2);
  EXPECT_EQ(junit.slower, 0);
}

TEST(GatePocl, AChangedIncludedHeaderIsChangedCode) {
  // A copy of the testbed kernel and the header it includes: the leaderboard
  // records both, so editing only the header makes --baseline-spec other code.
  test::TempDir dir;
  std::filesystem::create_directories(dir / "kernels/common");
  const std::string header = read_text_file(test::source_dir() / "kernels/common/attn_params.h");
  dir.write("kernels/common/attn_params.h", header);
  dir.write("testbed.cl", read_text_file(test::data("attention_testbed.cl")));
  std::string gate = read_text_file(spec("gate.json"));
  gate = std::regex_replace(gate, std::regex("\\.\\./attention_testbed\\.cl"), "testbed.cl");
  gate = std::regex_replace(gate, std::regex("\\.\\./\\.\\./\\.\\./kernels"), "kernels");
  const auto copy = dir.write("gate.json", gate).string();
  const auto base = (dir / "base.json").string();
  const auto swept = run_cli({"sweep", copy, "--device", "opencl:0:0", "--out", base, "--max-time", "0.1", "-q"});
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  const std::string recorded = read_text_file(base);
  EXPECT_TRUE(contains(recorded, "kernels/common/attn_params.h")) << "the leaderboard lists the included header";

  dir.write("kernels/common/attn_params.h", header + "/* edited */\n");
  const auto r =
      run_cli({"gate", "--baseline", base, "--candidate", base, "--device", "opencl:0:0", "--baseline-spec", copy});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "--baseline-spec is not the code")) << r.err;
  EXPECT_TRUE(contains(r.err, "attn_params.h (sha256")) << r.err;
}

TEST(GateCli, UsageErrorsExitTwo) {
  test::TempDir dir;
  const auto pocl = dir.write("pocl.json", test::fixture_leaderboard(test::kPocl, "s", {}).dump());
  const auto h200 = dir.write("h200.json", test::fixture_leaderboard(test::kH200, "s", {}).dump());
  auto r = run_cli({"gate", "--baseline", pocl.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--candidate LEADERBOARD or --device ID")) << r.err;
  r = run_cli({"gate", "--baseline", pocl.string(), "--candidate", h200.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "times of different devices do not compare")) << r.err;
  r = run_cli({"gate", "--baseline", pocl.string(), "--candidate", h200.string(), "--allow-other-device"});
  EXPECT_EQ(r.exit_code, 1) << "a baseline where nothing ranked passes nothing: " << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "has no ranked result to compare with")) << r.err;
  r = run_cli({"gate", "--baseline", (dir / "none.json").string(), "--candidate", h200.string()});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"gate", "--baseline", pocl.string(), "--candidate", pocl.string(), "--baseline-spec", spec("gate.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--baseline-spec measures the baseline: it needs --device")) << r.err;
}

TEST(GateCli, HelpStatesTheRule) {
  const auto r = run_cli({"gate", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* part : {"SLOWER     slowdown > threshold and slowdown > band", "UNCERTAIN", "--remeasure", "--junit",
                           "--markdown", "Exit 1 on any failure", "SLOWER only when every pair judged alone is SLOWER"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
}

}  // namespace
}  // namespace attn

// attn-tune report: one self-contained HTML file (checked here without a
// browser: well formed, nothing from the network, the table and the charts
// present) and its markdown twin.
#include <gtest/gtest.h>

#include <regex>

#include "tests/export/export_fixture.hpp"
#include "tests/export/leaderboard_fixture.hpp"
#include "tests/export/markup_check.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

long count(const std::string& s, const std::string& part) {
  long n = 0;
  for (auto at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& p : test::write_export_fixture(dir_)) files_.push_back(p.string());
  }
  std::string report(std::vector<std::string> extra) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--out", (dir_ / "report.out").string()});
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_text_file(dir_ / "report.out");
  }
  test::TempDir dir_;
  std::vector<std::string> files_;  // h200, h100, a100, pocl
};

TEST_F(Report, HtmlIsSelfContainedAndWellFormed) {
  const std::string html = report({files_[0], files_[1], files_[3]});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(test::markup_problems(html), "");
  for (const char* remote : {"http://", "https://", "<script", "<link", "url(", "@import", "src="})
    EXPECT_FALSE(contains(html, remote)) << remote << " would load something";
  EXPECT_TRUE(contains(html, "<style>"));
  // Every link of the table of contents lands somewhere.
  const std::regex href("href=\"#([^\"]+)\"");
  long links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_TRUE(contains(html, "id=\"" + (*it)[1].str() + "\"")) << (*it)[1];
  EXPECT_GE(links, 8);
  const std::string apart = report({files_[2], files_[3]});
  EXPECT_FALSE(contains(apart, "#compare")) << "the A100's and PoCL's prefill-1k are different problems (f16, f32_f16)";
}

TEST_F(Report, HasTheTableTheChartsAndTheFailures) {
  const std::string html = report({files_[0], files_[1], files_[3]});
  EXPECT_GE(count(html, "<table class=\"lb\">"), 4) << "a ranked table per (kernel, shape)";
  EXPECT_EQ(count(html, "aria-label=\"median time over BLOCK_M and BLOCK_N\""), 4) << "a heatmap per group";
  EXPECT_EQ(count(html, "aria-label=\"time / best of every ranked configuration"), 4) << "a spread per group";
  EXPECT_EQ(count(html, "aria-label=\"roofline"), 3) << "a roofline per leaderboard";
  EXPECT_TRUE(contains(html, "rel_l2 0.31 &gt; 0.0001")) << "failures with their reasons";
  EXPECT_TRUE(contains(html, "too many resources requested"));
  EXPECT_TRUE(contains(html, "Across leaderboards")) << "several leaderboards are compared";
  EXPECT_TRUE(contains(html, "ANCHORS.md")) << "says where the H200's ceilings come from";
  EXPECT_TRUE(contains(html, "none known for this device")) << "and that PoCL has none";
  EXPECT_TRUE(contains(html, "<th>batch_invariant</th>")) << "the determinism checks the H100 sweep ran";
  EXPECT_TRUE(contains(html, "<td class=\"status failed\">no</td>"));
  EXPECT_TRUE(contains(html, "<td>2.0e-06</td>")) << "the verified error";
}

TEST_F(Report, CeilingsFromTheCommandLineAreSaidToBe) {
  const std::string html = report({files_[3], "--peak-gflops", "300", "--peak-gbps", "40"});
  EXPECT_TRUE(contains(html, "given on the command line (--peak-gflops 300, --peak-gbps 40)")) << html.substr(0, 4000);
  EXPECT_TRUE(contains(html, "% roof</th>"));
}

TEST_F(Report, OtherHeatmapAxesAndKernelsWithoutThem) {
  const std::string html = report({files_[0], "--x", "BLOCK_N", "--y", "BLOCK_M"});
  EXPECT_TRUE(contains(html, "median time over BLOCK_N and BLOCK_M"));
  const std::string fallback = report({files_[0], "--x", "DV_TILE", "--y", "BLOCK_M"});
  EXPECT_TRUE(contains(fallback, "DV_TILE × BLOCK_M asked for, but this kernel&#39;s parameters are BLOCK_M, BLOCK_N"));
}

TEST_F(Report, MarkdownForTheTerminal) {
  const std::string md = report({files_[0], files_[2], "--format", "md"});
  EXPECT_TRUE(contains(md, "# attn-tune report"));
  EXPECT_TRUE(contains(md, "| rank | configuration | preset | median ms |"));
  EXPECT_TRUE(contains(md, "| BLOCK_N \\ BLOCK_M | 32 | 64 | 128 |")) << md;
  EXPECT_TRUE(contains(md, "| skipped | `BLOCK_M=64,BLOCK_N=64` | needs 96 KiB of shared memory |")) << md;
  EXPECT_TRUE(contains(md, "## Across leaderboards"));
  EXPECT_FALSE(contains(md, "<svg"));
}

}  // namespace
}  // namespace attn

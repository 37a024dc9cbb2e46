#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/run/journal.hpp"

namespace attn {
namespace {

ConfigResult result(const std::string& key_value, Status status) {
  ConfigResult r;
  r.job = Job{"k", "s", {{"BLOCK_M", std::stoll(key_value)}}, ""};
  r.status = status;
  r.reason = "why";
  if (status == Status::ok) {
    r.timing = SampleStats::of({1.0, 1.1, 0.9});
    r.resources["entry"].registers = 96;
    r.resources["entry"].compiler_notes = {"(C7514) Potential Performance Loss: wgmma serialized"};
  }
  return r;
}

TEST(Journal, AppendsAndReadsBack) {
  test::TempDir dir;
  const Journal::Header header{"abc", "opencl:0:0", 7};
  {
    Journal j(dir / "j.jsonl", header, true);
    j.append(result("16", Status::ok));
    j.append(result("32", Status::compile_failed));
  }
  const auto contents = Journal::read(dir / "j.jsonl", header);
  EXPECT_TRUE(contents.exists);
  EXPECT_FALSE(contents.finished);
  EXPECT_TRUE(contents.mismatch.empty());
  const auto& back = contents.results;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.at("k|s|BLOCK_M=16").status, Status::ok);
  EXPECT_NEAR(back.at("k|s|BLOCK_M=16").timing->median_ms, 1.0, 1e-12);
  // resources survive a resume, ptxas' performance notes with them
  const KernelResources& res = back.at("k|s|BLOCK_M=16").resources.at("entry");
  EXPECT_EQ(res.registers, 96);
  ASSERT_EQ(res.compiler_notes.size(), 1u);
  EXPECT_EQ(res.compiler_notes[0], "(C7514) Potential Performance Loss: wgmma serialized");
  EXPECT_EQ(back.at("k|s|BLOCK_M=32").status, Status::compile_failed);
}

TEST(Journal, TornLastLineFromAKillIsIgnored) {
  test::TempDir dir;
  const Journal::Header header{"abc", "opencl:0:0", 7};
  {
    Journal j(dir / "j.jsonl", header, true);
    j.append(result("16", Status::ok));
  }
  std::ofstream(dir / "j.jsonl", std::ios::app) << "{\"type\":\"result\",\"result\":{\"kern";
  EXPECT_EQ(Journal::read(dir / "j.jsonl", header).results.size(), 1u);
}

TEST(Journal, SaysWhenItBelongsToAnotherSpecDeviceOrSeed) {
  test::TempDir dir;
  {
    Journal j(dir / "j.jsonl", {"abc", "opencl:0:0", 7}, true);
    j.append(result("16", Status::ok));
  }
  EXPECT_NE(Journal::read(dir / "j.jsonl", {"abd", "opencl:0:0", 7}).mismatch.find("spec"), std::string::npos);
  EXPECT_NE(Journal::read(dir / "j.jsonl", {"abc", "cuda:0", 7}).mismatch.find("device"), std::string::npos);
  EXPECT_NE(Journal::read(dir / "j.jsonl", {"abc", "opencl:0:0", 8}).mismatch.find("seed"), std::string::npos);
  EXPECT_TRUE(Journal::read(dir / "j.jsonl", {"abc", "opencl:0:0", 7}).mismatch.empty());
}

TEST(Journal, FinishedMarker) {
  test::TempDir dir;
  const Journal::Header header{"abc", "opencl:0:0", 7};
  {
    Journal j(dir / "j.jsonl", header, true);
    j.mark_finished();
  }
  EXPECT_TRUE(Journal::read(dir / "j.jsonl", header).finished);
}

}  // namespace
}  // namespace attn

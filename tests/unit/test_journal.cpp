#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/record/journal.hpp"

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

Journal::Header header(double max_time_s = 1.0, std::uint64_t seed = 7) {
  return {{{"spec_sha256", "abc"},
           {"device", "opencl:0:0"},
           {"seed", seed},
           {"timing", {{"max_time_s", max_time_s}, {"flush_cache", true}}}},
          "attn-tune sweep s.json",
          "2026-11-24T10:00:00Z"};
}

// A journal of header() with results 16, 32 and 64.
std::filesystem::path three_results(const test::TempDir& dir) {
  Journal j(dir / "j.jsonl", header());
  for (const char* v : {"16", "32", "64"}) j.append(result(v, Status::ok));
  return dir / "j.jsonl";
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::filesystem::path& path, const std::vector<std::string>& lines, bool last_newline = true) {
  std::ofstream out(path, std::ios::trunc);
  for (std::size_t i = 0; i < lines.size(); ++i) out << lines[i] << (i + 1 < lines.size() || last_newline ? "\n" : "");
}

TEST(Journal, AppendsAndReadsBack) {
  test::TempDir dir;
  {
    Journal j(dir / "j.jsonl", header());
    j.append(result("16", Status::ok));
    j.append(result("32", Status::compile_failed));
  }
  const auto contents = Journal::read(dir / "j.jsonl", header());
  EXPECT_TRUE(contents.exists);
  EXPECT_FALSE(contents.finished);
  EXPECT_TRUE(contents.mismatch.empty());
  EXPECT_TRUE(contents.damaged.empty());
  EXPECT_TRUE(contents.problems.empty());
  EXPECT_EQ(contents.header.command, "attn-tune sweep s.json");
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

TEST(Journal, ATornLastLineIsReportedAndCutOffBeforeTheNextRecord) {
  test::TempDir dir;
  const auto path = three_results(dir);
  std::ofstream(path, std::ios::app) << "{\"type\":\"result\",\"result\":{\"kern";
  const auto contents = Journal::read(path, header());
  EXPECT_EQ(contents.results.size(), 3u);
  ASSERT_EQ(contents.problems.size(), 1u);
  EXPECT_NE(contents.problems[0].find("line 5, the last, is incomplete"), std::string::npos) << contents.problems[0];
  EXPECT_NE(contents.problems[0].find("measured again"), std::string::npos) << contents.problems[0];

  {
    Journal resumed(path, contents, {"attn-tune sweep s.json --resume", "2026-11-24T11:00:00Z"});
    resumed.append(result("128", Status::ok));
  }
  const auto again = Journal::read(path, header());
  EXPECT_TRUE(again.problems.empty()) << again.problems.front() << "\nthe torn line must not run into the next record";
  EXPECT_EQ(again.results.size(), 4u);
  ASSERT_EQ(again.resumes.size(), 1u);
  EXPECT_EQ(again.resumes[0].command, "attn-tune sweep s.json --resume");
}

TEST(Journal, AFinalRecordWithoutItsNewlineCountsAsTorn) {
  test::TempDir dir;
  const auto path = three_results(dir);
  auto lines = lines_of(path);
  write_lines(path, lines, /*last_newline=*/false);
  const auto contents = Journal::read(path, header());
  EXPECT_EQ(contents.results.size(), 2u) << "a record is complete with its newline only";
  ASSERT_EQ(contents.problems.size(), 1u);
  EXPECT_NE(contents.problems[0].find("line 4"), std::string::npos);
}

TEST(Journal, GarbageInTheMiddleIsReportedByLineNumber) {
  test::TempDir dir;
  const auto path = three_results(dir);
  auto lines = lines_of(path);
  lines[2] = "\x01garbage{";                     // line 3: was result 32
  lines.insert(lines.begin() + 3, "[1, 2, 3]");  // line 4: JSON, but no record
  write_lines(path, lines);
  const auto contents = Journal::read(path, header());
  EXPECT_EQ(contents.results.size(), 2u);
  EXPECT_FALSE(contents.results.contains("k|s|BLOCK_M=32")) << "its configuration is measured again";
  ASSERT_EQ(contents.problems.size(), 2u);
  EXPECT_NE(contents.problems[0].find("line 3 is not JSON"), std::string::npos) << contents.problems[0];
  EXPECT_NE(contents.problems[1].find("line 4 is not a journal record"), std::string::npos) << contents.problems[1];
}

TEST(Journal, ACorruptHeaderIsDamagedNotSilentlyResumed) {
  test::TempDir dir;
  const auto path = three_results(dir);
  auto lines = lines_of(path);
  lines[0] = lines[0].substr(0, lines[0].size() / 2);
  write_lines(path, lines);
  const auto contents = Journal::read(path, header());
  EXPECT_NE(contents.damaged.find("line 1, the journal's header, is not JSON"), std::string::npos) << contents.damaged;

  lines[0] = lines[1];  // a result where the header belongs
  write_lines(path, lines);
  EXPECT_NE(Journal::read(path, header()).damaged.find("line 1 is not the journal's header"), std::string::npos);
}

TEST(Journal, NamesTheFirstFieldThatDiffersFromTheHeader) {
  test::TempDir dir;
  three_results(dir);
  EXPECT_EQ(Journal::read(dir / "j.jsonl", header(0.1)).mismatch, "timing.max_time_s: 1.0 when the sweep started, 0.1 now");
  EXPECT_EQ(Journal::read(dir / "j.jsonl", header(1.0, 8)).mismatch, "seed: 7 when the sweep started, 8 now");
  Journal::Header more = header();
  more.measurement["timing"]["policy"] = "cold";
  EXPECT_EQ(Journal::read(dir / "j.jsonl", more).mismatch,
            "timing.policy: not recorded when the sweep started, \"cold\" now");
  EXPECT_TRUE(Journal::read(dir / "j.jsonl", header()).mismatch.empty());
}

TEST(Journal, AJournalOfAnOlderAttnTuneCannotBeResumed) {
  test::TempDir dir;
  const auto path = three_results(dir);
  auto lines = lines_of(path);
  lines[0] = R"({"type":"header","spec_sha256":"abc","device":"opencl:0:0","seed":7})";
  write_lines(path, lines);
  EXPECT_NE(Journal::read(path, header()).mismatch.find("older attn-tune"), std::string::npos);
}

TEST(Journal, FinishedMarker) {
  test::TempDir dir;
  {
    Journal j(dir / "j.jsonl", header());
    j.mark_finished();
  }
  EXPECT_TRUE(Journal::read(dir / "j.jsonl", header()).finished);
}

}  // namespace
}  // namespace attn

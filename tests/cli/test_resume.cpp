// A sweep killed with SIGKILL midway and resumed yields the same set of
// results as one that was never interrupted.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTiming = {"--min-samples", "4", "--max-time", "0.15", "--max-noise", "0.01", "-q"};

// The sweep's arguments; a timing option in `extra` replaces the default one.
std::vector<std::string> sweep_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep", "tests/data/resume.json", "--device", "opencl:0:0", "--out", out.string()};
  for (std::size_t i = 0; i < kTiming.size(); ++i) {
    const bool takes_value = kTiming[i] != "-q";
    if (std::find(extra.begin(), extra.end(), kTiming[i]) == extra.end()) {
      args.push_back(kTiming[i]);
      if (takes_value) args.push_back(kTiming[i + 1]);
    }
    if (takes_value) ++i;
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int result_lines(const fs::path& journal) {
  std::ifstream in(journal);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find("\"type\":\"result\"") != std::string::npos;
  return n;
}

// key -> status over every group of a leaderboard
std::map<std::string, std::string> outcome(const fs::path& leaderboard) {
  const auto lb = nlohmann::json::parse(read_text_file(leaderboard));
  std::map<std::string, std::string> m;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries"))
      m[g.at("shape").get<std::string>() + "|" + e.at("key").get<std::string>()] = e.at("status");
  return m;
}

TEST(Resume, KilledSweepResumesToTheSameResults) {
  test::TempDir dir;
  const fs::path reference = dir / "reference.json", killed = dir / "killed.json";
  const auto full = test::run_cli(sweep_args(reference));
  ASSERT_EQ(full.exit_code, 0) << full.err;

  // Start the same sweep and SIGKILL it once a few results are journaled.
  const fs::path journal = fs::path(killed.string() + ".journal.jsonl");
  const pid_t pid = test::start_cli(sweep_args(killed));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (result_lines(journal) < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int measured_before_kill = result_lines(journal);
  ASSERT_GE(measured_before_kill, 4);
  ASSERT_LT(measured_before_kill, 16) << "the sweep finished before it could be killed: make it longer";
  EXPECT_FALSE(fs::exists(killed)) << "the leaderboard is written at the end only";

  // Without --resume an unfinished journal is not silently discarded.
  const auto refused = test::run_cli(sweep_args(killed));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--resume"), std::string::npos) << refused.err;

  const auto resumed = test::run_cli(sweep_args(killed, {"--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(outcome(killed), outcome(reference));
  EXPECT_EQ(outcome(killed).size(), 16u);
  // Nothing measured before the kill was measured again.
  EXPECT_EQ(result_lines(journal), 16);
}

// The journal of a sweep that ran to the end, made to look interrupted: its
// `finished` record taken off, as if the sweep had been killed before it.
void unfinish(const fs::path& journal) {
  std::vector<std::string> lines;
  {
    std::ifstream in(journal);
    for (std::string line; std::getline(in, line);)
      if (line.find("\"type\":\"finished\"") == std::string::npos) lines.push_back(line);
  }
  std::ofstream out(journal, std::ios::trunc);
  for (const auto& line : lines) out << line << "\n";
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Resume, AResumeThatChangesWhatDefinesAMeasurementIsRefusedNamingTheField) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  ASSERT_EQ(test::run_cli(sweep_args(out)).exit_code, 0);
  unfinish(journal);
  const std::vector<std::pair<std::vector<std::string>, std::string>> changes = {
      {{"--no-flush"}, "timing.flush_cache: true when the sweep started, false now"},
      {{"--max-time", "0.1"}, "timing.max_time_s: 0.15 when the sweep started, 0.1 now"},
      {{"--min-samples", "5"}, "timing.min_samples: 4 when the sweep started, 5 now"},
      {{"--max-samples", "50"}, "timing.max_samples"},
      {{"--max-noise", "0.5"}, "timing.max_noise"},
      {{"--seed", "2"}, "seed: 1 when the sweep started, 2 now"},
      {{"--shape", "Nq=16"}, "shape_selection: \"\" when the sweep started, \"Nq=16\" now"},
      {{"--check", "determinism"}, "checks.enabled: false when the sweep started, true now"},
  };
  for (const auto& [extra, field] : changes) {
    auto args = extra;
    args.push_back("--resume");
    const auto r = test::run_cli(sweep_args(out, args));
    EXPECT_EQ(r.exit_code, 2) << extra[0];
    EXPECT_NE(r.err.find("cannot resume"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
  }
  // Options that do not change a measurement may change.
  const auto resumed = test::run_cli(sweep_args(out, {"--resume", "--top", "3", "--watchdog", "60"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  EXPECT_EQ(lb.at("command").get<std::string>().find("--resume"), std::string::npos)
      << "the leaderboard keeps the command that started the sweep: " << lb.at("command");
  ASSERT_EQ(lb.at("resumes").size(), 1u);
  EXPECT_NE(lb.at("resumes")[0].at("command").get<std::string>().find("--resume --top 3"), std::string::npos)
      << lb.at("resumes");
  EXPECT_FALSE(lb.at("resumes")[0].at("utc").get<std::string>().empty());
  EXPECT_EQ(lb.at("settings").at("timing").at("max_time_s"), 0.15);
}

TEST(Resume, AChangedSourceOrSpecIsRefused) {
  test::TempDir dir;
  // The resume spec, with its kernel source copied where the test may edit it.
  const fs::path source = dir / "testbed.cl";
  fs::copy_file(test::data("attention_testbed.cl"), source);
  auto spec_json = nlohmann::json::parse(read_text_file(test::data("resume.json")));
  spec_json["sources"]["opencl"] = source.string();
  spec_json["include_dirs"] = {(test::source_dir() / "kernels").string()};
  spec_json["kernels"]["naive"]["params"]["FAULT"] = {0};
  const fs::path spec = dir.write("spec.json", spec_json.dump(2));
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  auto args = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"sweep", spec.string(), "--device", "opencl:0:0", "--out", out.string()};
    a.insert(a.end(), kTiming.begin(), kTiming.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(test::run_cli(args({})).exit_code, 0);
  unfinish(journal);

  std::ofstream(source, std::ios::app) << "\n// edited\n";
  auto r = test::run_cli(args({"--resume"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sources.opencl: "), std::string::npos) << r.err;

  fs::remove(source);
  fs::copy_file(test::data("attention_testbed.cl"), source);
  spec_json["description"] = "edited";
  dir.write("spec.json", spec_json.dump(2));
  r = test::run_cli(args({"--resume"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("spec_sha256: "), std::string::npos) << r.err;
}

TEST(Resume, ACorruptJournalHeaderRefusesTheResume) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  ASSERT_EQ(test::run_cli(sweep_args(out)).exit_code, 0);
  unfinish(journal);
  auto lines = lines_of(journal);
  lines[0] = lines[0].substr(0, 20);
  {
    std::ofstream o(journal, std::ios::trunc);
    for (const auto& line : lines) o << line << "\n";
  }
  const auto r = test::run_cli(sweep_args(out, {"--resume"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 1, the journal's header, is not JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the journal is damaged"), std::string::npos) << r.err;
}

TEST(Resume, TornAndGarbageLinesAreReportedAndTheirConfigurationsMeasuredAgain) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json", journal = fs::path(out.string() + ".journal.jsonl");
  ASSERT_EQ(test::run_cli(sweep_args(out)).exit_code, 0);
  const auto before = outcome(out);
  unfinish(journal);
  auto lines = lines_of(journal);
  ASSERT_EQ(lines.size(), 17u) << "the header and 16 results";
  lines[2] = "garbage, not JSON";  // line 3: a result lost
  const std::string last = lines.back();
  lines.pop_back();
  {
    std::ofstream o(journal, std::ios::trunc);
    for (const auto& line : lines) o << line << "\n";
    o << last.substr(0, last.size() / 2);  // line 17, torn by a kill
  }
  const auto r = test::run_cli(sweep_args(out, {"--resume"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("line 3 is not JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 17, the last, is incomplete"), std::string::npos) << r.err;
  EXPECT_EQ(outcome(out), before) << "the two configurations were measured again";
  // The torn line was cut off: every record after the garbage is whole, one per line.
  const auto after = lines_of(journal);
  int results = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (i == 2) continue;
    const auto j = nlohmann::json::parse(after[i]);
    results += j.at("type") == "result";
  }
  EXPECT_EQ(results, 16);
}

}  // namespace
}  // namespace attn

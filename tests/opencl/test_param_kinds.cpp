// Parameters of every kind on PoCL (tests/data/param_kinds.json): a real, a
// boolean and an identifier sweep and verify, reach the kernel as -D options
// and the keys as written in the spec; a journal cut short resumes to the same
// keys without measuring its results again; the exported header holds them as
// double, bool and string and compiles with -Werror.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> sweep_args(const fs::path& out) {
  return {"sweep",
          "tests/data/param_kinds.json",
          "--device",
          "opencl:0:0",
          "--out",
          out.string(),
          "--min-samples",
          "2",
          "--max-time",
          "0.01",
          "-q"};
}

// key -> the entry, over the leaderboard's one group
std::map<std::string, nlohmann::json> entries(const fs::path& leaderboard) {
  const auto lb = nlohmann::json::parse(read_text_file(leaderboard));
  std::map<std::string, nlohmann::json> m;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) m[e.at("key").get<std::string>()] = e;
  return m;
}

std::vector<std::string> lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool is_result(const std::string& line) { return line.find("\"type\":\"result\"") != std::string::npos; }

class ParamKinds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    const auto r = test::run_cli(sweep_args(*dir_ / "lb.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::TempDir* dir_;
};
test::TempDir* ParamKinds::dir_ = nullptr;

TEST_F(ParamKinds, EveryKindSweepsVerifiesAndReachesTheKernelAsWritten) {
  const auto got = entries(*dir_ / "lb.json");
  ASSERT_EQ(got.size(), 12u);  // 16 points, 4 with SPLIT_K and WG 8 excluded by the constraint
  for (const auto& [key, e] : got) {
    EXPECT_EQ(e.at("status"), "ok") << key << ": " << e.dump().substr(0, 2000);
    EXPECT_LT(e.at("verify").at("rel_l2").get<double>(), 1e-6) << key;
  }
  const auto& e = got.at("WG=4,ALPHA=2.0,SPLIT_K=true,ACC=double");
  EXPECT_EQ(e.at("defines"), "-D WG=4 -D ALPHA=2.0 -D SPLIT_K=1 -D ACC=double");
  const nlohmann::json params = e.at("params");
  EXPECT_TRUE(params.at(1).at(1).is_number_float());
  EXPECT_EQ(params.at(2).at(1), true);
  EXPECT_EQ(params.at(3).at(1), "double");
  EXPECT_EQ(got.at("WG=4,ALPHA=0.5,SPLIT_K=false,ACC=float").value("preset", ""), "default");
}

TEST_F(ParamKinds, AJournalCutShortResumesToTheSameKeysWithoutMeasuringAgain) {
  const fs::path resumed = *dir_ / "resumed.json";
  const std::vector<std::string> full = lines(fs::path((*dir_ / "lb.json").string() + ".journal.jsonl"));
  std::vector<std::string> kept;
  int results = 0;
  for (const auto& line : full) {
    if (is_result(line) && ++results > 5) break;
    kept.push_back(line);
  }
  ASSERT_EQ(results, 6) << "the full journal has fewer results than expected";
  {
    std::ofstream out(resumed.string() + ".journal.jsonl");
    for (const auto& line : kept) out << line << "\n";
  }
  std::vector<std::string> args = sweep_args(resumed);
  args.push_back("--resume");
  const auto r = test::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::vector<std::string> after = lines(resumed.string() + ".journal.jsonl");
  ASSERT_GE(after.size(), kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(after[i], kept[i]) << "line " << i << " was rewritten";
  EXPECT_EQ(std::count_if(after.begin(), after.end(), is_result), 12);

  const auto before = entries(*dir_ / "lb.json"), now = entries(resumed);
  std::set<std::string> before_keys, now_keys;
  for (const auto& [k, _] : before) before_keys.insert(k);
  for (const auto& [k, e] : now) {
    now_keys.insert(k);
    EXPECT_EQ(e.at("status"), "ok") << k;
  }
  EXPECT_EQ(now_keys, before_keys);
}

int shell(const std::string& command, std::string& output) {
  const std::string log = (fs::temp_directory_path() / fmt::format("param_kinds_{}.log", ::getpid())).string();
  const int status = std::system((command + " > '" + log + "' 2>&1").c_str());
  output = read_text_file(log);
  fs::remove(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST_F(ParamKinds, TheExportedHeaderHoldsEachKindAndCompiles) {
  const auto r = test::run_cli({"export", (*dir_ / "lb.json").string(), "--out", (*dir_ / "tuned.h").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = read_text_file(*dir_ / "tuned.h");
  EXPECT_NE(header.find("  double ALPHA;"), std::string::npos) << header;
  EXPECT_NE(header.find("  bool SPLIT_K;"), std::string::npos) << header;
  EXPECT_NE(header.find("  const char* ACC;"), std::string::npos) << header;

  dir_->write("main.cpp", R"cpp(#include "tuned.h"
#include <cstdio>
                                static_assert(attn_tuned::param_kinds_kinds_table_is_valid(),
                                              "every row holds values the sweep tried");
                                int main() {
                                  constexpr attn_tuned::param_kinds_kinds_params p = attn_tuned::param_kinds_kinds_default();
                                  std::printf("WG=%d,ALPHA=%.1f,SPLIT_K=%s,ACC=%s", p.WG, p.ALPHA, p.SPLIT_K ? "true" : "false", p.ACC);
                                }
  )cpp");
  std::string output;
  const std::string exe = (*dir_ / "main").string();
  ASSERT_EQ(shell(fmt::format("'{}' -std=c++17 -Wall -Wextra -Wpedantic -Werror -I'{}' '{}' -o '{}'", ATTN_TUNE_CXX_COMPILER,
                              dir_->path().string(), (*dir_ / "main.cpp").string(), exe),
                  output),
            0)
      << output << "\n"
      << header;
  ASSERT_EQ(shell("'" + exe + "'", output), 0) << output;
  EXPECT_TRUE(entries(*dir_ / "lb.json").contains(output)) << "the default is no swept configuration: " << output;
}

}  // namespace
}  // namespace attn

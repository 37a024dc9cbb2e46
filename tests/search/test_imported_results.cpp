// Other tuners' results read as leaderboards (tuner/record/imported_results.hpp): Kernel Tuner cache files and
// T4 results documents, gzipped or not, replayed like attn-tune's own; an attn-tune T4 export read back is the
// leaderboard it came from; a bad field is named.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/compressed_file.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/export/t4_writer.hpp"
#include "tuner/record/leaderboard_reader.hpp"
#include "tuner/search/replay.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

fs::path imported(const std::string& name) { return test::source_dir() / "tests/data/imported" / name; }

nlohmann::json document(const fs::path& file) { return nlohmann::json::parse(read_maybe_gzipped_file(file)); }

TEST(ImportedResults, AKernelTunerCacheFileIsOneRankedGroupWithItsFailuresAsStatuses) {
  const fs::path file = imported("convolution_A100_subset.json.gz");
  const nlohmann::json kt = document(file);
  // What the file says, counted here.
  std::map<std::string, int> markers;
  std::string fastest;
  double fastest_ms = 1e300;
  for (const auto& [id, e] : kt.at("cache").items()) {
    if (e.at("time").is_string()) ++markers[e.at("time").get<std::string>()];
    else if (e.at("time").get<double>() < fastest_ms) fastest_ms = e.at("time").get<double>(), fastest = id;
  }
  const Leaderboard lb = read_leaderboard(file);
  ASSERT_EQ(lb.groups.size(), 1u);
  const LeaderboardGroup& g = lb.groups.front();
  EXPECT_EQ(g.kernel, kt.at("kernel_name").get<std::string>());
  EXPECT_EQ(lb.device.name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(g.entries.size(), kt.at("cache").size());
  const auto counts = g.counts();
  EXPECT_EQ(counts.at("compile_failed"), markers["CompilationFailedConfig"]);
  EXPECT_EQ(counts.at("launch_failed"), markers["RuntimeFailedConfig"]);
  EXPECT_EQ(g.param_names(), kt.at("tune_params_keys").get<std::vector<std::string>>());  // the file's order
  ASSERT_NE(g.best(), nullptr);
  EXPECT_DOUBLE_EQ(g.best()->timing->median_ms, fastest_ms);  // Kernel Tuner's `time`, the objective
  std::string key_values;                                     // the cache's own key: the values joined with commas
  for (const auto& [_, v] : g.best()->job.config) key_values += (key_values.empty() ? "" : ",") + v.text();
  EXPECT_EQ(key_values, fastest);
}

TEST(ImportedResults, AT4ResultsDocumentIsReadWithItsInvalidities) {
  const fs::path file = imported("convolution_A100_T4_subset.json.gz");
  const nlohmann::json t4 = document(file);
  int correct = 0, runtime = 0;
  double fastest_ms = 1e300;
  for (const auto& r : t4.at("results")) {
    const std::string inv = r.at("invalidity");
    if (inv == "correct") {
      ++correct;
      for (const auto& m : r.at("measurements"))
        if (m.at("name") == "time") fastest_ms = std::min(fastest_ms, m.at("value").get<double>());
    }
    runtime += inv == "runtime";
  }
  const Leaderboard lb = read_leaderboard(file);
  const LeaderboardGroup& g = lb.groups.front();
  EXPECT_EQ(g.counts().at("ok"), correct);
  EXPECT_EQ(g.counts().at("launch_failed"), runtime);
  EXPECT_DOUBLE_EQ(g.best()->timing->median_ms, fastest_ms);
  EXPECT_EQ(g.param_names().front(), "block_size_x");  // the configuration's own order, not sorted
  // Replayed as a recorded space.
  const ReplayResult r = replay(RecordedGroup::of(g), {"random", 50, 3, 1, {0.03}});
  EXPECT_EQ(r.space_size, static_cast<long long>(g.entries.size()));
  EXPECT_EQ(r.runs.size(), 3u);
}

TEST(ImportedResults, AnAttnTuneT4ExportReadBackIsTheLeaderboardItCameFrom) {
  const Leaderboard lb = read_leaderboard(test::source_dir() / "results/h200/staged/race/race/attn_tune_cold.json");
  const LeaderboardGroup& g = lb.groups.front();
  test::TempDir dir;
  const fs::path file = dir.write("export.results.json", t4_results(lb, g).dump(1));
  const Leaderboard back = read_leaderboard(file);
  ASSERT_EQ(back.groups.size(), 1u);
  const LeaderboardGroup& b = back.groups.front();
  EXPECT_EQ(b.kernel, g.kernel);
  EXPECT_EQ(b.shape, g.shape);
  EXPECT_EQ(back.device.name, lb.device.name);
  EXPECT_EQ(b.param_names(), g.param_names());
  ASSERT_EQ(b.entries.size(), g.entries.size());
  for (std::size_t i = 0; i < g.entries.size(); ++i) {
    const auto& was = g.entries[i];
    const auto& now = b.entries[i];
    EXPECT_EQ(config_key(now.job.config), config_key(was.job.config)) << i;
    EXPECT_EQ(now.status, was.status) << i;
    EXPECT_EQ(now.rank, was.rank) << i;
    if (was.timing) {
      EXPECT_DOUBLE_EQ(now.timing->median_ms, was.timing->median_ms) << i;
      EXPECT_DOUBLE_EQ(now.timing->q1_ms, was.timing->q1_ms) << i;
      EXPECT_EQ(now.timing->samples, was.timing->samples) << i;
    }
  }
}

TEST(ImportedResults, ABadFieldIsNamed) {
  test::TempDir dir;
  const auto fails = [&](const std::string& text, const std::string& expected) {
    const fs::path file = dir.write("bad.json", text);
    try {
      read_leaderboard(file);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  fails(R"({"tune_params_keys": ["X"], "cache": {"1": {"X": 1, "time": "Bogus"}}})", "cache[\"1\"].time: expected a time");
  fails(R"({"tune_params_keys": ["X", "Y"], "cache": {"1": {"X": 1, "time": 2.0}}})", "cache[\"1\"].Y: missing");
  fails(R"({"schema_version": "1.0.0", "results": [{"configuration": {"X": 1}, "invalidity": "odd"}]})",
        "results[0].invalidity: expected correct");
  fails(R"({"schema_version": "1.0.0", "results": [{"configuration": {"X": 1}, "invalidity": "correct"}]})",
        "results[0].measurements: a correct result without a `time` measurement");
  // Kernel Tuner's InvalidConfig is a skip; a plain .json reads as the .json.gz does.
  const Leaderboard lb = read_leaderboard(dir.write(
      "ok.json",
      R"({"tune_params_keys": ["X"], "cache": {"1": {"X": 1, "time": 2.0}, "2": {"X": 2, "time": "InvalidConfig"}}})"));
  EXPECT_EQ(lb.groups.front().counts().at("skipped"), 1);
}

// The whole recorded spaces of the community's benchmark hub, where the shared folder is next to the checkout.
TEST(ImportedResults, TheSharedRecordedSpacesReplay) {
  const fs::path shared = test::source_dir().parent_path() / "shared" / "search-spaces";
  if (!fs::exists(shared)) GTEST_SKIP() << shared << " is not here: the whole recorded spaces are not read";
  const std::map<std::string, long long> sizes = {{"convolution_milo__A100.json.gz", 4362},
                                                  {"convolution_milo__A100_T4.json.gz", 4362},
                                                  {"convolution_milo__W6600.json.gz", 4362},
                                                  {"dedispersion_milo__A4000.json.gz", 11130},
                                                  {"kt_gemm__RTX_2080_Ti.json.gz", 17956}};
  for (const auto& [name, size] : sizes) {
    const Leaderboard lb = read_leaderboard(shared / name);
    const RecordedGroup g = RecordedGroup::of(lb.groups.front());
    EXPECT_EQ(g.size(), size) << name;
    const ReplayResult r = replay(g, {"random", 100, 2, 1, {0.03}});
    EXPECT_EQ(r.runs.size(), 2u) << name;
  }
}

}  // namespace
}  // namespace attn

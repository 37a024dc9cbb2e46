// The leaderboard format has one typed model: every leaderboard committed under
// results/ loads with it, and writing a loaded one loses nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tests/export/leaderboard_fixture.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/record/leaderboard_reader.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// Every JSON file under results/ whose `schema` names a leaderboard; other
// result files (determinism matrices, comparisons with other libraries) have another schema or none.
std::vector<fs::path> committed_leaderboards() {
  std::vector<fs::path> files;
  for (const auto& f : fs::recursive_directory_iterator(test::source_dir() / "results")) {
    if (!f.is_regular_file() || f.path().extension() != ".json") continue;
    const nlohmann::json j = nlohmann::json::parse(read_text_file(f.path()));
    if (j.is_object() && j.value("schema", "").starts_with(kLeaderboardSchemaPrefix)) files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The paths of J's leaves ("groups[0].entries[3].timing.median_ms") with their values.
void leaves(const nlohmann::json& j, const std::string& path, std::map<std::string, nlohmann::json>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) leaves(v, path + "." + k, out);
  } else if (j.is_array() && !j.empty()) {
    for (std::size_t i = 0; i < j.size(); ++i) leaves(j[i], fmt::format("{}[{}]", path, i), out);
  } else {
    out[path] = j;
  }
}

TEST(LeaderboardModel, EveryCommittedLeaderboardLoads) {
  const auto files = committed_leaderboards();
  ASSERT_GE(files.size(), 20u) << "results/ holds the committed leaderboards";
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const Leaderboard lb = read_leaderboard(f);
    EXPECT_FALSE(lb.groups.empty());
    EXPECT_FALSE(lb.spec_name.empty());
    for (const auto& g : lb.groups)
      for (std::size_t i = 0; i < g.ranked().size(); ++i) EXPECT_EQ(g.ranked()[i]->rank, static_cast<int>(i) + 1);
  }
}

TEST(LeaderboardModel, WritingACommittedLeaderboardKeepsEveryValueItHad) {
  for (const auto& f : committed_leaderboards()) {
    SCOPED_TRACE(f.string());
    const nlohmann::json original = nlohmann::json::parse(read_text_file(f));
    std::map<std::string, nlohmann::json> before, after;
    leaves(original, "", before);
    leaves(nlohmann::json(read_leaderboard(f)), "", after);
    int lost = 0;
    for (const auto& [path, value] : before) {
      if (path == ".schema") continue;  // written as the current version
      const auto it = after.find(path);
      if (it == after.end()) ADD_FAILURE() << path << " is lost";
      else if (it->second != value) ADD_FAILURE() << path << ": " << value << " became " << it->second;
      else continue;
      if (++lost > 5) break;
    }
    EXPECT_EQ(nlohmann::json(read_leaderboard(f)).at("schema"), kLeaderboardSchema);
  }
}

TEST(LeaderboardModel, LoadingWritingAndLoadingAgainGivesTheSameLeaderboard) {
  test::TempDir dir;
  for (const auto& f : committed_leaderboards()) {
    SCOPED_TRACE(f.string());
    const Leaderboard once = read_leaderboard(f);
    const Leaderboard twice = read_leaderboard(dir.write("again.json", nlohmann::json(once).dump(2)));
    EXPECT_EQ(nlohmann::json(once), nlohmann::json(twice));
    ASSERT_EQ(once.groups.size(), twice.groups.size());
    for (std::size_t g = 0; g < once.groups.size(); ++g) {
      ASSERT_EQ(once.groups[g].entries.size(), twice.groups[g].entries.size());
      for (std::size_t e = 0; e < once.groups[g].entries.size(); ++e) {
        EXPECT_EQ(once.groups[g].entries[e].rank, twice.groups[g].entries[e].rank);
        EXPECT_EQ(once.groups[g].entries[e].job.key(), twice.groups[g].entries[e].job.key());
      }
    }
  }
}

TEST(LeaderboardModel, ResumesAndTheStartTimeRoundTrip) {
  Leaderboard lb = nlohmann::json(test::fixture_leaderboard(test::kPocl, "s", {})).get<Leaderboard>();
  lb.command = "attn-tune sweep s.json";
  lb.started_utc = "2026-11-24T10:00:00Z";
  lb.resumes = {{"attn-tune sweep s.json --resume", "2026-11-24T10:05:00Z"},
                {"attn-tune sweep s.json --resume -q", "2026-11-24T11:00:00Z"}};
  const Leaderboard back = nlohmann::json(lb).get<Leaderboard>();
  EXPECT_EQ(back.command, "attn-tune sweep s.json");
  EXPECT_EQ(back.started_utc, "2026-11-24T10:00:00Z");
  ASSERT_EQ(back.resumes.size(), 2u);
  EXPECT_EQ(back.resumes[1].command, "attn-tune sweep s.json --resume -q");
  EXPECT_EQ(back.resumes[1].utc, "2026-11-24T11:00:00Z");
}

TEST(LeaderboardModel, FieldsItDoesNotKnowAreIgnored) {
  nlohmann::json j = test::fixture_leaderboard(
      test::kPocl, "s", {{"k", "tiny", test::attention_fields("f32", 64, 0, 16, 16), {{{{"BLOCK_M", 16}}, 1.0}}, ""}});
  j["from_a_newer_attn_tune"] = {{"x", 1}};
  j["groups"][0]["tie_groups"] = nlohmann::json::array({1, 2});
  j["groups"][0]["entries"][0]["timing"]["clock_mhz"] = 1980;
  const Leaderboard lb = j.get<Leaderboard>();
  ASSERT_EQ(lb.groups.size(), 1u);
  EXPECT_EQ(lb.groups[0].best()->timing->median_ms, 1.0);
}

TEST(LeaderboardModel, AVersionOneFileLoadsAndANewerVersionIsRefusedNamingIt) {
  test::TempDir dir;
  nlohmann::json j = test::fixture_leaderboard(test::kPocl, "s", {});
  j["schema"] = "attn-tune.leaderboard/1";
  j.erase("started_utc");
  EXPECT_EQ(read_leaderboard(dir.write("v1.json", j.dump())).schema_version, 1);
  j["schema"] = "attn-tune.leaderboard/9";
  try {
    read_leaderboard(dir.write("v9.json", j.dump()));
    FAIL() << "a newer format loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("v9.json: schema: 'attn-tune.leaderboard/9' is newer"), std::string::npos)
        << e.what();
  }
}

TEST(LeaderboardModel, AMalformedEntryIsNamedByItsGroupAndIndex) {
  test::TempDir dir;
  nlohmann::json j = test::fixture_leaderboard(test::kPocl, "s",
                                               {{"k",
                                                 "tiny",
                                                 test::attention_fields("f32", 64, 0, 16, 16),
                                                 {{{{"BLOCK_M", 16}}, 1.0}, {{{"BLOCK_M", 32}}, 2.0}},
                                                 ""}});
  j["groups"][0]["entries"][1]["status"] = "exploded";
  try {
    read_leaderboard(dir.write("bad.json", j.dump()));
    FAIL() << "an unknown status loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: groups[0].entries[1]: unknown status 'exploded'"), std::string::npos)
        << e.what();
  }
  j["groups"][0].erase("kernel");
  try {
    read_leaderboard(dir.write("bad.json", j.dump()));
    FAIL() << "a group without its kernel loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("groups[0].kernel: missing required field"), std::string::npos) << e.what();
  }
}

TEST(LeaderboardModel, DerivedFiguresAreComputedFromTheEntries) {
  const Leaderboard lb = nlohmann::json(test::fixture_leaderboard(test::kPocl, "s",
                                                                  {{"k",
                                                                    "tiny",
                                                                    test::attention_fields("f32", 64, 0, 16, 16),
                                                                    {{{{"BLOCK_M", 16}}, 2.0},
                                                                     {{{"BLOCK_M", 32}}, 1.0},
                                                                     {{{"BLOCK_M", 64}}, 4.0},
                                                                     {{{"BLOCK_M", 8}}, 0, "incorrect", "rel_l2 1"}},
                                                                    "heuristic"}}))
                             .get<Leaderboard>();
  const nlohmann::json g = nlohmann::json(lb).at("groups")[0];
  EXPECT_EQ(g.at("best").at("key"), "BLOCK_M=32");
  EXPECT_EQ(g.at("counts"), (nlohmann::json{{"ok", 3}, {"incorrect", 1}}));
  EXPECT_EQ(g.at("baseline").at("key"), "BLOCK_M=64") << "the fixture puts the baseline on the middle entry";
  EXPECT_DOUBLE_EQ(g.at("baseline").at("best_speedup").get<double>(), 4.0);
}

}  // namespace
}  // namespace attn

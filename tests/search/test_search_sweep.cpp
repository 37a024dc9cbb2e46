// `sweep --strategy` on PoCL: budgets and constraints honoured, the same seed
// runs the same configurations, and --resume continues a search exactly.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/record/result.hpp"
#include "tuner/search/space_sampler.hpp"
#include "tuner/sweep/search_sweep.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

test::CommandResult sweep(const fs::path& out, const std::string& strategy, int budget, std::vector<std::string> extra = {},
                          const std::string& seed = "5") {
  std::vector<std::string> args{"sweep",          "tests/data/search_space.json",
                                "--device",       "opencl:0:0",
                                "--out",          out.string(),
                                "--strategy",     strategy,
                                "--budget-evals", std::to_string(budget),
                                "--seed",         seed,
                                "--min-samples",  "3",
                                "--max-time",     "0.05",
                                "--max-noise",    "0.05",
                                "--no-isolate",   "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_cli(args);
}

// The journaled configurations in the order they ran: "shape|WG=..,...".
std::vector<std::string> journal_order(const fs::path& leaderboard) {
  std::ifstream in(leaderboard.string() + ".journal.jsonl");
  std::vector<std::string> keys;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("type", "") != "result") continue;
    const auto& r = j.contains("result") ? j.at("result") : j;
    std::string key = r.at("shape").get<std::string>() + "|";
    for (const auto& param : r.at("params"))
      key += param[0].get<std::string>() + "=" + std::to_string(param[1].get<long long>()) + ",";
    keys.push_back(key);
  }
  return keys;
}

TEST(SearchSweep, EachStrategyRunsItsBudgetPerShapeWithinTheConstraints) {
  test::TempDir dir;
  for (const std::string strategy : {"random", "annealing", "genetic", "surrogate"}) {
    const fs::path out = dir / (strategy + ".json");
    const auto r = sweep(out, strategy, 4);
    ASSERT_EQ(r.exit_code, 0) << strategy << ": " << r.err;
    const auto lb = nlohmann::json::parse(read_text_file(out));
    ASSERT_EQ(lb.at("groups").size(), 2u) << strategy;
    for (const auto& g : lb.at("groups")) {
      EXPECT_EQ(g.at("entries").size(), 4u) << strategy << " on " << g.at("shape");
      const long long nq = g.at("shape_fields").at("Nq");
      for (const auto& e : g.at("entries")) {
        std::map<std::string, long long> p;
        for (const auto& param : e.at("params")) p[param[0].get<std::string>()] = param[1].get<long long>();
        EXPECT_LE(p.at("WG") * p.at("REPEAT"), 64) << e.at("key");
        EXPECT_TRUE(p.at("FAULT") == 0 || p.at("WG") >= 8) << e.at("key");
        EXPECT_LE(p.at("WG"), nq) << e.at("key");
      }
    }
    EXPECT_EQ(journal_order(out).size(), 8u) << strategy;
  }
}

TEST(SearchSweep, TheSameSeedRunsTheSameConfigurationsInTheSameOrder) {
  // Random search proposes independently of the measured times, which vary run to run.
  test::TempDir dir;
  ASSERT_EQ(sweep(dir / "a.json", "random", 5).exit_code, 0);
  ASSERT_EQ(sweep(dir / "b.json", "random", 5).exit_code, 0);
  EXPECT_EQ(journal_order(dir / "a.json"), journal_order(dir / "b.json"));
  ASSERT_EQ(sweep(dir / "c.json", "random", 5, {}, "6").exit_code, 0);
  EXPECT_NE(journal_order(dir / "a.json"), journal_order(dir / "c.json"));
}

// The journal's results of SHAPE, in order.
std::vector<ConfigResult> journaled(const fs::path& leaderboard, const std::string& shape) {
  std::ifstream in(leaderboard.string() + ".journal.jsonl");
  std::vector<ConfigResult> out;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("type", "") != "result") continue;
    ConfigResult r = ConfigResult::from_json(j.at("result"));
    if (r.job.shape == shape) out.push_back(std::move(r));
  }
  return out;
}

TEST(SearchSweep, ResumeWithALargerBudgetContinuesTheSearchExactly) {
  test::TempDir dir;
  // Stopped after 3 configurations per shape, then resumed to 7: the resumed run
  // replays the 3 journaled results into the strategy before proposing more.
  ASSERT_EQ(sweep(dir / "parts.json", "annealing", 3).exit_code, 0);
  const auto first = journaled(dir / "parts.json", "s");
  ASSERT_EQ(first.size(), 3u);
  const auto resumed = sweep(dir / "parts.json", "annealing", 7, {"--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;

  // An uninterrupted annealing run told the same results proposes exactly what was run, in that order.
  const Spec spec = load_spec(test::source_dir() / "tests/data/search_space.json");
  for (const std::string shape : {"s", "t"}) {
    const auto results = journaled(dir / "parts.json", shape);
    ASSERT_EQ(results.size(), 7u) << shape;
    if (shape == "s") {
      for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(results[i].job.key(), first[i].job.key());
    }
    const ConstrainedSpace space(spec.kernels[0], find_operation("attention").variables(spec.shape(shape).fields));
    auto strategy = make_strategy("annealing", space, stream_seed(5, "naive|" + shape, 0));
    std::size_t i = 0;
    const SearchRun run = run_search(*strategy, {7, 0}, [&](const Config& c) -> Cost {
      EXPECT_EQ(config_key(c), config_key(results[i].job.config)) << shape << " evaluation " << i;
      return result_cost(results[i++]);
    });
    EXPECT_EQ(run.evaluations.size(), 7u);
  }
}

TEST(SearchSweep, AResumeUnderASmallerBudgetThanItsJournalHoldsIsRefused) {
  test::TempDir dir;
  // Killed searches and finished ones alike: what the journal holds is never dropped by a smaller budget.
  ASSERT_EQ(sweep(dir / "parts.json", "annealing", 5).exit_code, 0);
  const auto smaller = sweep(dir / "parts.json", "annealing", 3, {"--resume"});
  EXPECT_EQ(smaller.exit_code, 2) << smaller.err;
  EXPECT_NE(smaller.err.find("--budget-evals 5 or more"), std::string::npos) << smaller.err;
  const auto other = sweep(dir / "parts.json", "random", 5, {"--resume"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("search.strategy"), std::string::npos) << other.err;
}

TEST(SearchSweep, ABudgetWithoutAStrategySearchesWithTheDefaultStrategy) {
  test::TempDir dir;
  const fs::path out = dir / "default.json";
  const auto r = test::run_cli({"sweep", "tests/data/search_space.json", "--device", "opencl:0:0", "--out", out.string(),
                                "--budget-evals", "3", "--seed", "5", "--min-samples", "3", "--max-time", "0.05",
                                "--no-isolate", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The default's first proposals (its random start) do not depend on the measured times, so naming it gives the same run.
  ASSERT_EQ(sweep(dir / "named.json", kDefaultSearchStrategy, 3).exit_code, 0);
  EXPECT_EQ(journal_order(out), journal_order(dir / "named.json"));
  EXPECT_EQ(journal_order(out).size(), 6u);
}

TEST(SearchSweep, AnUnknownStrategyIsAUsageError) {
  test::TempDir dir;
  const auto r = sweep(dir / "x.json", "hillclimb", 3);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("hillclimb"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

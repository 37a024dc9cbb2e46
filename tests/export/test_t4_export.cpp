// `attn-tune export --format t4` against Kernel Tuner's T4 schemas (tests/data/t4/), validated with valijson.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "tests/export/export_fixture.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

nlohmann::json read_json(const std::filesystem::path& p) { return nlohmann::json::parse(read_text_file(p)); }

// The validation errors of DOCUMENT against the schema in tests/data/t4/SCHEMA; empty when valid.
std::string schema_errors(const nlohmann::json& document, const std::string& schema) {
  const nlohmann::json schema_json = read_json(test::data("t4/" + schema));
  valijson::Schema parsed;
  // The T4 schemas name draft 2020-12 but use only keywords draft 7 already has (type, properties, enum, pattern, items,
  // required).
  valijson::SchemaParser(valijson::SchemaParser::kDraft7)
      .populateSchema(valijson::adapters::NlohmannJsonAdapter(schema_json), parsed);
  valijson::ValidationResults results;
  valijson::Validator validator;
  if (validator.validate(parsed, valijson::adapters::NlohmannJsonAdapter(document), &results)) return {};
  std::string out;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) {
    for (const auto& part : e.context) out += part;
    out += ": " + e.description + "\n";
  }
  return out.empty() ? "invalid" : out;
}

TEST(T4Export, EveryDocumentValidatesAgainstKernelTunersSchemas) {
  test::TempDir dir;
  const auto leaderboards = test::write_export_fixture(dir);
  std::vector<std::string> args{"export"};
  for (const auto& l : leaderboards) args.push_back(l.string());
  args.push_back(test::source_dir().string() + "/results/h200/flash_attn_decode.json");
  args.insert(args.end(), {"--format", "t4", "--out", (dir / "t4").string()});
  const auto r = test::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int results = 0, metadata = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir / "t4")) {
    const bool is_metadata = f.path().string().ends_with(".metadata.json");
    EXPECT_EQ(schema_errors(read_json(f.path()), is_metadata ? "metadata-schema.json" : "results-schema.json"), "")
        << f.path();
    (is_metadata ? metadata : results) += 1;
  }
  EXPECT_EQ(metadata, 5);
  EXPECT_EQ(results, 5 + 12);  // the fixture's five groups, the decode leaderboard's twelve
}

TEST(T4Export, StatusesBecomeInvalidityAndChecksBecomeMeasurements) {
  test::TempDir dir;
  const auto leaderboards = test::write_export_fixture(dir);
  const auto r = test::run_cli({"export", leaderboards[0].string(), leaderboards[1].string(), leaderboards[3].string(),
                                "--format", "t4", "--out", (dir / "t4").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto find = [](const nlohmann::json& doc, long long m, long long n) {
    for (const auto& e : doc.at("results"))
      if (e.at("configuration").at("BLOCK_M") == m && e.at("configuration").at("BLOCK_N") == n) return e;
    return nlohmann::json();
  };
  const auto h200_4k = read_json(dir / "t4/h200.prefill.prefill-4k.results.json");
  EXPECT_EQ(find(h200_4k, 64, 32).at("invalidity"), "runtime");  // launch_failed
  const auto ok = find(h200_4k, 128, 64);
  EXPECT_EQ(ok.at("invalidity"), "correct");
  EXPECT_EQ(ok.at("objectives"), nlohmann::json::array({"time"}));
  EXPECT_EQ(ok.at("measurements")[0].at("name"), "time");
  EXPECT_DOUBLE_EQ(ok.at("measurements")[0].at("value").get<double>(), 3.00);
  EXPECT_EQ(find(read_json(dir / "t4/pocl.prefill.prefill-1k.results.json"), 128, 64).at("invalidity"), "correctness");

  const auto h100 = read_json(dir / "t4/h100.prefill.prefill-1k.results.json");
  std::map<std::string, nlohmann::json> m;
  const auto checked = find(h100, 64, 32);
  for (const auto& x : checked.at("measurements")) m[x.at("name").get<std::string>()] = x.at("value");
  EXPECT_EQ(m.at("deterministic"), 1);
  EXPECT_EQ(m.at("batch_invariant"), 0);
}

TEST(T4Export, TheValidatorRejectsAnInvalidityTheSchemaDoesNotKnow) {
  const nlohmann::json bad = {{"schema_version", "1.0.0"},
                              {"results",
                               {{{"configuration", {{"X", 1}}},
                                 {"times", nlohmann::json::object()},
                                 {"invalidity", "exploded"},
                                 {"correctness", 1}}}}};
  EXPECT_NE(schema_errors(bad, "results-schema.json"), "");
}

TEST(T4Export, WithoutAnOutputDirectoryItIsAUsageError) {
  test::TempDir dir;
  const auto leaderboards = test::write_export_fixture(dir);
  const auto r = test::run_cli({"export", leaderboards[0].string(), "--format", "t4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn

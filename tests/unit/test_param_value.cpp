// Parameters that are not integers: reals, booleans and identifiers load from
// a spec in one kind per parameter, are written the same way in keys, journal
// lines and template arguments, read back exactly, and expressions see
// booleans as 0/1 and refuse reals and identifiers by name. Integer-only
// configurations keep their keys and journal lines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/plan/launch_plan.hpp"
#include "tuner/record/result.hpp"
#include "tuner/spec/config_assignment.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

ojson spec_with(const ojson& params, const ojson& constraints = ojson::array()) {
  ojson spec = ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "unit",
    "operation": "attention",
    "sources": { "opencl": "k.cl" },
    "shapes": { "s": { "B": 1, "Hq": 2, "Nq": 16, "D": 64 } },
    "kernels": { "k": { "launches": [ { "entry": "attn", "grid": ["Hq"], "block": ["32"] } ] } }
  })json");
  spec["kernels"]["k"]["params"] = params;
  spec["kernels"]["k"]["constraints"] = constraints;
  return spec;
}

Spec load(const test::TempDir& dir, const ojson& spec) {
  dir.write("k.cl", "__kernel void attn() {}\n");
  return load_spec(dir.write("spec.json", spec.dump(2)));
}

std::pair<std::string, std::string> load_error(const ojson& spec) {
  test::TempDir dir;
  try {
    load(dir, spec);
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(ParamValue, EachKindIsWrittenAsCWritesItAndReadsBackExactly) {
  EXPECT_EQ(ParamValue(64).text(), "64");
  EXPECT_EQ(ParamValue::real(0.5).text(), "0.5");
  EXPECT_EQ(ParamValue::real(2).text(), "2.0");  // stays a real
  EXPECT_EQ(ParamValue::real(0.1).text(), "0.1");
  EXPECT_EQ(ParamValue::boolean(true).text(), "true");
  EXPECT_EQ(ParamValue::boolean(true).define_text(), "1");
  EXPECT_EQ(ParamValue::identifier("float").define_text(), "float");
  for (const ParamValue& v : {ParamValue(-3), ParamValue::real(0.1), ParamValue::real(1e-7), ParamValue::real(2),
                              ParamValue::boolean(false), ParamValue::identifier("half")}) {
    EXPECT_EQ(ParamValue::from_json(nlohmann::json::parse(v.to_json().dump())), v) << v.text();
    EXPECT_EQ(ParamValue::parse(v.kind(), v.text()), v) << v.text();
  }
  EXPECT_THROW(ParamValue::identifier("not one"), std::invalid_argument);
  EXPECT_THROW(ParamValue::parse(ParamValue::Kind::boolean, "yes"), std::invalid_argument);
}

TEST(ParamValue, AJournaledJobReadsBackToTheSameKeyAndAnIntegerOneIsUnchanged) {
  Job job{"k",
          "s",
          {{"WG", 64},
           {"ALPHA", ParamValue::real(2)},
           {"SPLIT", ParamValue::boolean(true)},
           {"ACC", ParamValue::identifier("float")}},
          ""};
  const Job back = Job::from_json(nlohmann::json::parse(job.to_json().dump()));
  EXPECT_EQ(back.config, job.config);
  EXPECT_EQ(back.key(), "k|s|WG=64,ALPHA=2.0,SPLIT=true,ACC=float");
  const Job integers{"k", "s", {{"BLOCK_M", 32}, {"BLOCK_N", 64}}, ""};
  EXPECT_EQ(integers.to_json().at("params").dump(), R"([["BLOCK_M",32],["BLOCK_N",64]])");
  EXPECT_EQ(integers.key(), "k|s|BLOCK_M=32,BLOCK_N=64");
}

TEST(ParamValue, ASpecSweepsEveryKindAndConstraintsSeeBooleansAsZeroOrOne) {
  test::TempDir dir;
  const Spec spec =
      load(dir, spec_with({{"WG", {16, 32}}, {"ALPHA", {0.5, 1}}, {"SPLIT", {false, true}}, {"ACC", {"float", "half"}}},
                          {"SPLIT == 0 || WG == 16"}));
  const KernelSpec& k = spec.kernels[0];
  EXPECT_EQ(k.params[1].second[1], ParamValue::real(1));  // an integer among reals is a real
  const Space space = enumerate_space(k, {{"B", 1}, {"Hq", 2}, {"Nq", 16}, {"D", 64}});
  EXPECT_EQ(space.product_size, 16);
  EXPECT_EQ(space.pruned, 4);
  EXPECT_EQ(config_key(space.configs.back().config), "WG=32,ALPHA=1.0,SPLIT=false,ACC=half");

  const Config config = space.configs.front().config;
  const LaunchPlan plan = plan_launches(k, config, {{"B", 1}, {"Hq", 2}, {"Nq", 16}, {"D", 64}});
  EXPECT_EQ(defines_string(plan.defines), "-D WG=16 -D ALPHA=0.5 -D SPLIT=0 -D ACC=float");
  EXPECT_EQ(instantiate_entry("attn<WG, ALPHA, SPLIT, ACC>", {{"D", 64}}, config), "attn<16, 0.5, false, float>");

  const Config set = config_from_assignments(k, "", "WG=16,ALPHA=1.0,SPLIT=true,ACC=half");
  EXPECT_EQ(config_key(set), "WG=16,ALPHA=1.0,SPLIT=true,ACC=half");
  EXPECT_THROW(config_from_assignments(k, "", "WG=16,ALPHA=1.0,SPLIT=maybe,ACC=half"), UsageError);
}

TEST(ParamValue, MixedKindsAndExpressionsOverRealsOrIdentifiersAreSpecErrorsNamingThem) {
  auto [field, message] = load_error(spec_with({{"SPLIT", {true, 1}}}));
  EXPECT_EQ(field, "kernels.k.params.SPLIT[1]");
  EXPECT_NE(message.find("expected true or false, got number"), std::string::npos) << message;

  std::tie(field, message) = load_error(spec_with({{"ACC", {"float", "two words"}}}));
  EXPECT_EQ(field, "kernels.k.params.ACC[1]");

  std::tie(field, message) = load_error(spec_with({{"ALPHA", {0.5, 1.0}}}, {"ALPHA < 1"}));
  EXPECT_EQ(field, "kernels.k.constraints[0]");
  EXPECT_NE(message.find("'ALPHA' is a real or identifier parameter"), std::string::npos) << message;

  EXPECT_EQ(load_error(spec_with({{"X", {{{"a", 1}}}}})).first, "kernels.k.params.X[0]");
}

}  // namespace
}  // namespace attn

// A custom operation verified against a CPU function of attn-tune's
// ("reference": {"cpu": "matmul"}) on PoCL: the correct kernel verifies in
// every configuration, a planted wrong one is caught; a spec naming an
// unknown function, or buffers that do not fit it, is refused naming the field.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "tests/support/pocl_sweep.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

TEST(CustomCpuReference, TheCorrectKernelVerifiesAndThePlantedWrongOneIsCaught) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::data("matmul_cpu_reference.json"), dir);
  int ok = 0, caught = 0;
  for (const auto& g : lb.at("groups")) {
    for (const auto& e : g.at("entries")) {
      const std::string where = g.at("kernel").get<std::string>() + "/" + g.at("shape").get<std::string>();
      if (g.at("kernel") == "correct") {
        ASSERT_EQ(e.at("status"), "ok") << where << ": " << e.dump().substr(0, 2000);
        EXPECT_LT(e.at("verify").at("rel_l2").get<double>(), 1e-6) << where;
        EXPECT_EQ(e.at("verify").at("rows_checked").get<long long>(), e.at("verify").at("rows_total").get<long long>());
        ++ok;
      } else {
        EXPECT_EQ(e.at("status"), "incorrect") << where << ": " << e.dump().substr(0, 2000);
        EXPECT_NE(e.value("reason", "").find("the CPU reference 'matmul' gives"), std::string::npos)
            << e.dump().substr(0, 2000);
        ++caught;
      }
    }
  }
  EXPECT_EQ(ok, 4);      // 2 shapes x 2 work-group sizes
  EXPECT_EQ(caught, 2);  // 2 shapes
}

// The evaluator zeroes the workspace's first bytes before each configuration: the kernel adds a counter it keeps
// there to its output and bumps it after every run, so a configuration verified after another ran (one worker,
// one workspace) is correct only if the counter starts at zero again.
TEST(CustomCpuReference, EveryRunStartsWithTheWorkspacesFirstBytesZero) {
  test::TempDir dir;
  const nlohmann::json lb = test::pocl_sweep(test::data("workspace_counter.json"), dir);
  int ok = 0;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) {
      EXPECT_EQ(e.at("status"), "ok") << e.dump().substr(0, 2000);
      ok += e.at("status") == "ok";
    }
  EXPECT_EQ(ok, 3);  // 3 work-group sizes, one after another
}

std::pair<std::string, std::string> load_error(const std::function<void(ojson&)>& edit) {
  test::TempDir dir;
  ojson spec = ojson::parse(read_text_file(test::data("matmul_cpu_reference.json")));
  spec["sources"]["opencl"] = (test::data("matmul.cl")).string();
  edit(spec);
  try {
    load_spec(dir.write("spec.json", spec.dump(2)));
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(CustomCpuReference, AnUnknownFunctionIsRefusedListingTheKnownOnes) {
  const auto [field, message] = load_error([](ojson& s) { s["custom"]["reference"] = {{"cpu", "conv2d"}}; });
  EXPECT_EQ(field, "custom.reference.cpu");
  EXPECT_NE(message.find("unknown CPU reference 'conv2d' (known: attention, matmul)"), std::string::npos) << message;
}

TEST(CustomCpuReference, BuffersAndFieldsThatDoNotFitTheFunctionAreRefusedNamingThem) {
  auto [field, message] = load_error([](ojson& s) { s["custom"]["buffers"].erase("b"); });
  EXPECT_EQ(field, "custom.reference.cpu");
  EXPECT_NE(message.find("buffer 'b'"), std::string::npos) << message;

  std::tie(field, message) = load_error([](ojson& s) {
    s["custom"]["buffers"]["a"] = {{"type", "f32"}, {"size", "M * K"}, {"output", true}};
  });
  EXPECT_EQ(field, "custom.reference.cpu");
  EXPECT_NE(message.find("reads buffer 'a': declare it as an input"), std::string::npos) << message;

  std::tie(field, message) = load_error([](ojson& s) { s["custom"]["buffers"]["c"]["size"] = "M * N + 1"; });
  EXPECT_EQ(field, "shapes.17x23x9");
  EXPECT_NE(message.find("buffer 'c' has 392 elements; the CPU reference 'matmul' needs 391"), std::string::npos) << message;

  std::tie(field, message) = load_error([](ojson& s) {
    s["custom"]["reference"] = {{"cpu", "matmul"}, {"kernel", "correct"}};
  });
  EXPECT_EQ(field, "custom.reference");
}

}  // namespace
}  // namespace attn

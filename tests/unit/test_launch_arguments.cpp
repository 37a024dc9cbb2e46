// Per-launch argument lists: each launch of a pipeline may declare its own,
// falling back to the kernel's, then to the operation's contract; errors name
// the kernel, the launch and the argument.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/kernel_arguments.hpp"
#include "tuner/plan/signature_check.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

// Three launches: the first and last with lists of their own, the middle one without.
ojson pipeline_spec() {
  return ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "unit",
    "operation": "attention",
    "sources": { "opencl": "k.cl" },
    "shapes": { "s": { "B": 1, "Hq": 2, "Hkv": 2, "Nq": 16, "Nkv": 16, "D": 64 } },
    "kernels": {
      "k": {
        "params": { "SPLITS": [2] },
        "workspace_bytes": "Hq * Nq * SPLITS * 4",
        "launches": [
          { "entry": "prepass", "grid": ["Hq"], "block": ["64"],
            "arguments": ["q", "workspace", { "name": "rows", "type": "int32", "value": "Hq * Nq" }] },
          { "entry": "split", "grid": ["Hq * SPLITS"], "block": ["64"] },
          { "entry": "merge", "grid": ["Hq"], "block": ["64"], "arguments": ["workspace", "o"] }
        ]
      }
    }
  })json");
}

Spec load(const test::TempDir& dir, const ojson& spec) {
  dir.write("k.cl", "__kernel void prepass() {}\n__kernel void split() {}\n__kernel void merge() {}\n");
  return load_spec(dir.write("spec.json", spec.dump(2)));
}

std::vector<std::vector<BoundArgument>> bind(const Spec& spec) {
  const Operation& op = find_operation(spec.operation);
  const auto& fields = spec.shapes[0].fields;
  const auto problem = op.make_problem(fields, 1);
  return bind_launch_arguments(spec.kernels[0], *problem, config_bindings(op.variables(fields), {{"SPLITS", 2}}),
                               op.number_variables(fields));
}

std::vector<std::string> names(const std::vector<BoundArgument>& list) {
  std::vector<std::string> out;
  for (const auto& a : list) out.push_back(a.name);
  return out;
}

TEST(LaunchArguments, EachLaunchBindsItsOwnListAndOneWithoutTakesTheOperationsContract) {
  test::TempDir dir;
  const Spec spec = load(dir, pipeline_spec());
  const auto bound = bind(spec);
  ASSERT_EQ(bound.size(), 3u);
  EXPECT_EQ(names(bound[0]), (std::vector<std::string>{"q", "workspace", "rows"}));
  EXPECT_EQ(bound[0][2].field, "kernels.k.launches[0].arguments[2]");
  EXPECT_EQ(names(bound[1]).back(), "params") << "no list anywhere: the operation's contract";
  EXPECT_EQ(bound[1].front().field, "");
  EXPECT_EQ(names(bound[2]), (std::vector<std::string>{"workspace", "o"}));
  EXPECT_TRUE(spec.kernels[0].declares_arguments());
}

TEST(LaunchArguments, ALaunchWithoutItsOwnListTakesTheKernels) {
  test::TempDir dir;
  ojson json = pipeline_spec();
  json["kernels"]["k"]["arguments"] = {"k", "v", "workspace"};
  const auto bound = bind(load(dir, json));
  EXPECT_EQ(names(bound[1]), (std::vector<std::string>{"k", "v", "workspace"}));
  EXPECT_EQ(bound[1][0].field, "kernels.k.arguments[0]");
  EXPECT_EQ(names(bound[0]).front(), "q") << "a launch's own list wins over the kernel's";
}

std::pair<std::string, std::string> load_error(const ojson& json) {
  test::TempDir dir;
  try {
    load(dir, json);
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(LaunchArguments, ErrorsNameTheLaunchAndTheArgument) {
  ojson json = pipeline_spec();
  json["kernels"]["k"]["launches"][2]["arguments"][1] = "partial";
  const auto [field, message] = load_error(json);
  EXPECT_EQ(field, "kernels.k.launches[2].arguments[1]");
  EXPECT_NE(message.find("unknown buffer 'partial'"), std::string::npos) << message;

  json = pipeline_spec();
  json["kernels"]["k"]["launches"][0]["arguments"][2]["value"] = "Hq * nope";
  EXPECT_EQ(load_error(json).first, "kernels.k.launches[0].arguments[2].value");

  json = pipeline_spec();
  json["kernels"]["k"]["launches"][0]["arguments"] = ojson::array();
  EXPECT_EQ(load_error(json).first, "kernels.k.launches[0].arguments");
}

TEST(LaunchArguments, ASignatureMismatchNamesTheLaunchsOwnList) {
  test::TempDir dir;
  const auto bound = bind(load(dir, pipeline_spec()));
  const std::vector<KernelParameter> merge = {{"ws", "float*", KernelParameter::Space::global, 8},
                                              {"o", "float*", KernelParameter::Space::global, 8},
                                              {"rows", "int", KernelParameter::Space::value, 4}};
  EXPECT_EQ(signature_mismatch("merge", merge, bound[2]),
            "kernel 'merge' takes 3 parameters, kernels.k.launches[2].arguments passes 2 arguments: parameter 2 "
            "`int rows` gets no argument");
}

}  // namespace
}  // namespace attn

// Kernel arguments declared in a spec: loaded with errors naming the argument,
// bound to the problem's buffers and to scalars evaluated per shape and
// configuration, and the operation's contract when none are declared.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/custom_buffers.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/kernel_arguments.hpp"
#include "tuner/record/result.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

ojson spec_with_arguments(const ojson& arguments) {
  ojson spec = ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "unit",
    "operation": "attention",
    "sources": { "opencl": "k.cl" },
    "shapes": { "s": { "B": 2, "Hq": 4, "Hkv": 2, "Nq": 16, "Nkv": 24, "D": 64, "scale": 0.25 } },
    "kernels": {
      "k": {
        "params": { "BLOCK_M": [16, 32] },
        "launches": [ { "entry": "attn", "grid": ["Hq"], "block": ["BLOCK_M"] } ]
      }
    }
  })json");
  spec["kernels"]["k"]["arguments"] = arguments;
  return spec;
}

Spec load(const test::TempDir& dir, const ojson& spec) {
  dir.write("k.cl", "__kernel void attn() {}\n");
  return load_spec(dir.write("spec.json", spec.dump(2)));
}

// The SpecError's field and message when loading ARGUMENTS fails.
std::pair<std::string, std::string> load_error(const ojson& arguments) {
  test::TempDir dir;
  try {
    load(dir, spec_with_arguments(arguments));
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(KernelArgumentsSpec, AnUnknownBufferIsNamedWithItsPositionAndTheKnownOnes) {
  const auto [field, message] = load_error({"q", "k", "v", "qq"});
  EXPECT_EQ(field, "kernels.k.arguments[3]");
  EXPECT_NE(message.find("unknown buffer 'qq' (known: q, k, v, mask, sinks, o, workspace, params"), std::string::npos)
      << message;
}

TEST(KernelArgumentsSpec, AnUnknownScalarTypeIsNamed) {
  const auto [field, message] = load_error({"q", {{"name", "n"}, {"type", "int16"}, {"value", "Nq"}}});
  EXPECT_EQ(field, "kernels.k.arguments[1].type");
  EXPECT_NE(message.find("unknown scalar type 'int16' (known: int32, int64, float32)"), std::string::npos) << message;
}

TEST(KernelArgumentsSpec, AnUnknownNameInAScalarExpressionIsNamed) {
  const auto [field, message] = load_error({{{"name", "stride"}, {"type", "int32"}, {"value", "Nq * HEAD"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].value");
  EXPECT_NE(message.find("unknown name 'HEAD'"), std::string::npos) << message;
}

TEST(KernelArgumentsSpec, ARealShapeFieldInAnIntegerArgumentSaysToDeclareItFloat) {
  const auto [field, message] = load_error({{{"name", "s"}, {"type", "int32"}, {"value", "scale"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].value");
  EXPECT_NE(message.find("declare the argument float32"), std::string::npos) << message;
}

TEST(KernelArgumentsSpec, AScalarWithoutAValueAndAnArgumentOfTheWrongKindAreNamed) {
  EXPECT_EQ(load_error({{{"type", "int32"}}}).first, "kernels.k.arguments[0].value");
  EXPECT_EQ(load_error({"q", 3}).first, "kernels.k.arguments[1]");
  EXPECT_EQ(load_error({{{"type", "int32"}, {"value", "1"}, {"stride", 1}}}).first, "kernels.k.arguments[0].stride");
  EXPECT_EQ(load_error(ojson::array()).first, "kernels.k.arguments");
}

TEST(KernelArguments, DeclaredArgumentsBindBuffersByNameAndScalarsPerConfiguration) {
  test::TempDir dir;
  const Spec spec =
      load(dir, spec_with_arguments({"o",
                                     "q",
                                     "workspace",
                                     {{"name", "stride_h"}, {"type", "int32"}, {"value", "Nq * D"}},
                                     {{"name", "rows"}, {"type", "int64"}, {"value", "B * Hq * Nq * BLOCK_M"}},
                                     {{"name", "scale"}, {"type", "float32"}, {"value", "scale / 2"}},
                                     {{"name", "default_scale"}, {"type", "float32"}, {"value", "1 / sqrt(D)"}},
                                     "params"}));
  const Operation& op = find_operation(spec.operation);
  const auto& fields = spec.shapes[0].fields;
  const auto problem = op.make_problem(fields, 1);
  const Config config = {{"BLOCK_M", 32}};
  const auto bound =
      bind_arguments(spec.kernels[0], *problem, config_bindings(op.variables(fields), config), op.number_variables(fields));
  ASSERT_EQ(bound.size(), 8u);
  EXPECT_EQ(bound[0].kind, BoundArgument::Kind::buffer);
  EXPECT_EQ(problem->buffers()[bound[0].buffer].name, "o");
  EXPECT_EQ(problem->buffers()[bound[1].buffer].name, "q");
  EXPECT_EQ(bound[2].kind, BoundArgument::Kind::workspace);

  std::int32_t stride;
  ASSERT_EQ(bound[3].bytes.size(), 4u);
  std::memcpy(&stride, bound[3].bytes.data(), 4);
  EXPECT_EQ(stride, 16 * 64);
  std::int64_t rows;
  ASSERT_EQ(bound[4].bytes.size(), 8u);
  std::memcpy(&rows, bound[4].bytes.data(), 8);
  EXPECT_EQ(rows, 2LL * 4 * 16 * 32);
  float scale, default_scale;
  ASSERT_EQ(bound[5].bytes.size(), 4u);
  std::memcpy(&scale, bound[5].bytes.data(), 4);
  EXPECT_FLOAT_EQ(scale, 0.125f);
  std::memcpy(&default_scale, bound[6].bytes.data(), 4);
  EXPECT_FLOAT_EQ(default_scale, 0.125f);
  EXPECT_EQ(bound[7].bytes, problem->params_bytes());
  EXPECT_EQ(describe_arguments(bound)[3].at("value"), 1024);
}

TEST(KernelArguments, TheSoftmaxScaleAKernelSeesIsTheOperationsDefaultWhenTheShapeGivesNone) {
  const Operation& op = find_operation("attention");
  const nlohmann::json fields = {{"dtype", "f32_f16"}, {"B", 1},          {"Hq", 1},         {"Hkv", 1},    {"Nq", 1},
                                 {"Nkv", 1},           {"D", 64},         {"causal", 0},     {"window", 0}, {"mask", 0},
                                 {"sinks", 0},         {"max_bias", 0.0}, {"scale", nullptr}};
  EXPECT_DOUBLE_EQ(op.number_variables(fields).at("scale"), 0.125);
}

TEST(KernelArguments, AnInt32ThatDoesNotFitSkipsTheConfigurationNamingTheArgument) {
  test::TempDir dir;
  const Spec spec = load(dir, spec_with_arguments({{{"name", "huge"}, {"type", "int32"}, {"value", "D * 1073741824"}}}));
  const Operation& op = find_operation(spec.operation);
  const auto problem = op.make_problem(spec.shapes[0].fields, 1);
  try {
    bind_arguments(spec.kernels[0], *problem, config_bindings(op.variables(spec.shapes[0].fields), {{"BLOCK_M", 16}}), {});
    FAIL() << "bound an int32 out of range";
  } catch (const Outcome& o) {
    EXPECT_EQ(o.status, Status::skipped);
    EXPECT_NE(o.reason.find("kernels.k.arguments[0] (huge)"), std::string::npos) << o.reason;
    EXPECT_NE(o.reason.find("does not fit an int32"), std::string::npos) << o.reason;
  }
}

TEST(KernelArguments, WithoutDeclaredArgumentsTheOperationsContractApplies) {
  test::TempDir dir;
  ojson spec = spec_with_arguments({"q"});
  spec["kernels"]["k"].erase("arguments");
  const Spec loaded = load(dir, spec);
  const Operation& op = find_operation(loaded.operation);
  const auto problem = op.make_problem(loaded.shapes[0].fields, 1);
  const auto bound = bind_arguments(loaded.kernels[0], *problem, op.variables(loaded.shapes[0].fields), {});
  ASSERT_EQ(bound.size(), problem->buffers().size() + 2);
  for (std::size_t i = 0; i < problem->buffers().size(); ++i) EXPECT_EQ(bound[i].buffer, i);
  EXPECT_EQ(bound[bound.size() - 2].kind, BoundArgument::Kind::workspace);
  EXPECT_EQ(bound.back().bytes, problem->params_bytes());
}

// The names the loader validates against are those of the buffers the operation makes.
TEST(KernelArguments, EveryOperationsBufferNamesAreThoseOfItsProblems) {
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "configs")) {
    if (entry.path().string().find("_small.json") == std::string::npos) continue;
    const Spec spec = load_spec(entry.path());
    const Operation& op = find_operation(spec.operation);
    for (const auto& shape : spec.shapes) {
      const auto problem = op.make_problem(shape.fields, 1);
      std::vector<std::string> made;
      for (const auto& b : problem->buffers()) made.push_back(b.name);
      EXPECT_EQ(op.buffer_names(shape.fields), made) << entry.path() << " " << shape.name;
    }
  }
}

TEST(FloatExpression, DividesWithoutTruncationWhereIntegerExpressionsTruncate) {
  const std::vector<std::string> names = {"D"};
  EXPECT_EQ(Expression("D / 48", names).eval({{"D", 128}}), 2);
  EXPECT_DOUBLE_EQ(FloatExpression("D / 48", names).eval({{"D", 128}}, {}), 128.0 / 48);
  EXPECT_DOUBLE_EQ(FloatExpression("1 / sqrt(D)", names).eval({{"D", 64}}, {}), 0.125);
  EXPECT_THROW(FloatExpression("1 / D", names).eval({{"D", 0}}, {}), ExpressionError);  // not finite
  EXPECT_THROW(FloatExpression("E * 2", names), ExpressionError);
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

ojson custom_spec() {
  return ojson::parse(R"json({
    "attn_tune_spec": 1,
    "name": "custom_unit",
    "operation": "custom",
    "custom": {
      "shape_fields": ["N"],
      "buffers": {
        "x": { "type": "f16", "size": "N", "init": "iota" },
        "y": { "type": "f32", "size": "2 * N", "output": true }
      },
      "reference": { "kernel": "naive" }
    },
    "sources": { "opencl": "k.cl" },
    "shapes": { "s": { "N": 8 } },
    "kernels": {
      "naive": {
        "params": { "WG": [8] },
        "launches": [ { "entry": "attn", "grid": ["N"], "block": ["WG"] } ],
        "arguments": ["x", "y", { "name": "n", "type": "int32", "value": "N" }]
      }
    }
  })json");
}

std::pair<std::string, std::string> custom_error(const std::function<void(ojson&)>& mutate) {
  test::TempDir dir;
  ojson spec = custom_spec();
  mutate(spec);
  try {
    load(dir, spec);
  } catch (const SpecError& e) {
    return {e.field(), e.message()};
  }
  return {"(loaded)", ""};
}

TEST(CustomOperationSpec, DeclaredBuffersAreDrawnSizedAndPoisonedAsDeclared) {
  test::TempDir dir;
  const Spec spec = load(dir, custom_spec());
  const Operation& op = spec_operation(spec);
  EXPECT_EQ(op.buffer_names(spec.shapes[0].fields), (std::vector<std::string>{"x", "y"}));
  const auto problem = op.make_problem(spec.shapes[0].fields, 7);
  const auto& x = problem->buffers()[0];
  const auto& y = problem->buffers()[1];
  EXPECT_FALSE(x.is_output);
  ASSERT_EQ(x.data.size(), 8u * 2);                           // f16
  EXPECT_EQ(element_value(x.data, BufferType::f16, 5), 5.0);  // iota
  EXPECT_TRUE(y.is_output);
  EXPECT_EQ(y.data.size(), 16u * 4);
  std::vector<std::byte> poisoned(4);
  std::memcpy(poisoned.data(), y.poison.data(), 4);
  EXPECT_TRUE(element_is_bad(poisoned, BufferType::f32, 0));
  ASSERT_TRUE(op.device_reference().has_value());
  EXPECT_EQ(op.device_reference()->kernel, "naive");
}

TEST(CustomOperationSpec, OutputsAreComparedWithTheReferenceKernelsOutputs) {
  test::TempDir dir;
  const Spec spec = load(dir, custom_spec());
  const auto problem = spec_operation(spec).make_problem(spec.shapes[0].fields, 7);
  std::vector<std::byte> reference = initial_values(BufferType::f32, BufferInit::random, 16, 3);
  problem->set_reference_outputs({reference});
  EXPECT_TRUE(problem->verify({reference}, spec.tolerance).passed);
  std::vector<std::byte> off = reference;
  std::memcpy(off.data() + 4 * 9, std::vector<float>{100.f}.data(), 4);
  const VerifyReport wrong = problem->verify({off}, spec.tolerance);
  EXPECT_FALSE(wrong.passed);
  EXPECT_NE(wrong.worst.find("y[9] = 100"), std::string::npos) << wrong.worst;
}

TEST(CustomOperationSpec, MistakesAreNamedWithTheirField) {
  auto [field, message] = custom_error([](ojson& s) { s["custom"]["buffers"]["x"]["type"] = "fp8"; });
  EXPECT_EQ(field, "custom.buffers.x.type");
  EXPECT_NE(message.find("unknown element type 'fp8'"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["reference"]["kernel"] = "navie"; });
  EXPECT_EQ(field, "custom.reference.kernel");
  EXPECT_NE(message.find("no kernel named 'navie'"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["y"]["size"] = "M"; });
  EXPECT_EQ(field, "custom.buffers.y.size");

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["y"]["output"] = false; });
  EXPECT_EQ(field, "custom.buffers");
  EXPECT_NE(message.find("at least one output"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["kernels"]["naive"].erase("arguments"); });
  EXPECT_EQ(field, "kernels.naive");
  EXPECT_NE(message.find("declare the kernel's `arguments`"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["kernels"]["naive"]["arguments"][2] = "params"; });
  EXPECT_EQ(field, "kernels.naive.arguments[2]");
  EXPECT_NE(message.find("no parameter struct"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["kernels"]["naive"]["arguments"][0] = "q"; });
  EXPECT_EQ(field, "kernels.naive.arguments[0]");
  EXPECT_NE(message.find("unknown buffer 'q' (known: x, y"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["shapes"]["s"] = {{"M", 3}}; });
  EXPECT_EQ(field, "shapes.s.M");
}

}  // namespace
}  // namespace attn

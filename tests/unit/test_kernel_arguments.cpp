// Kernel arguments declared in a spec: loaded with errors naming the argument,
// bound to the problem's buffers and to scalars evaluated per shape and
// configuration, and the operation's contract when none are declared.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/error.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/custom_buffers.hpp"
#include "tuner/ops/operation.hpp"
#include "tuner/plan/kernel_arguments.hpp"
#include "tuner/plan/signature_check.hpp"
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
  EXPECT_EQ(field, "kernels.naive.launches[0]");  // a launch without a list of its own or the kernel's
  EXPECT_NE(message.find("declare this launch's `arguments` or the kernel's"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["kernels"]["naive"]["arguments"][2] = "params"; });
  EXPECT_EQ(field, "kernels.naive.arguments[2]");
  EXPECT_NE(message.find("no parameter struct"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["kernels"]["naive"]["arguments"][0] = "q"; });
  EXPECT_EQ(field, "kernels.naive.arguments[0]");
  EXPECT_NE(message.find("unknown buffer 'q' (known: x, y"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["shapes"]["s"] = {{"M", 3}}; });
  EXPECT_EQ(field, "shapes.s.M");
}

// ---- optional inputs: null pointers ----

TEST(KernelArgumentsSpec, ABufferThatMayBeNullIsCheckedNamingItsFields) {
  auto [field, message] = load_error({"q", {{"buffer", "maks"}, {"null_when", "mask == 0"}}});
  EXPECT_EQ(field, "kernels.k.arguments[1].buffer");
  EXPECT_NE(message.find("unknown buffer 'maks'"), std::string::npos) << message;

  std::tie(field, message) = load_error({{{"buffer", "mask"}, {"null_when", "has_mask == 0"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].null_when");
  EXPECT_NE(message.find("unknown name 'has_mask'"), std::string::npos) << message;

  std::tie(field, message) = load_error({{{"buffer", "mask"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].null_when");

  std::tie(field, message) = load_error({{{"buffer", "workspace"}, {"null_when", "1"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].buffer");
  EXPECT_NE(message.find("only a buffer can be passed as null"), std::string::npos) << message;

  std::tie(field, message) = load_error({{{"buffer", "mask"}, {"null_when", "mask == 0"}, {"type", "int32"}}});
  EXPECT_EQ(field, "kernels.k.arguments[0].type");
}

struct NoBuffer final : Buffer {
  std::size_t size() const override { return 0; }
};

TEST(KernelArguments, ABufferIsNullExactlyWhereItsConditionHoldsAndNullIsAlwaysNull) {
  test::TempDir dir;
  ojson json = spec_with_arguments({"q", {{"buffer", "mask"}, {"null_when", "mask == 0"}}, nullptr});
  json["shapes"]["with_mask"] = {{"B", 1}, {"Hq", 2}, {"Nq", 4}, {"D", 16}, {"mask", 1}};
  const Spec spec = load(dir, json);
  const Operation& op = find_operation(spec.operation);
  for (const auto& shape : spec.shapes) {
    const auto problem = op.make_problem(shape.fields, 1);
    const auto bound =
        bind_arguments(spec.kernels[0], *problem, config_bindings(op.variables(shape.fields), {{"BLOCK_M", 16}}),
                       op.number_variables(shape.fields));
    ASSERT_EQ(bound.size(), 3u);
    EXPECT_EQ(bound[1].kind, shape.name == "with_mask" ? BoundArgument::Kind::buffer : BoundArgument::Kind::null)
        << shape.name;
    EXPECT_EQ(bound[2].kind, BoundArgument::Kind::null);
    EXPECT_EQ(bound[1].field, "kernels.k.arguments[1]");
    std::vector<std::unique_ptr<Buffer>> buffers;
    for (std::size_t i = 0; i < problem->buffers().size(); ++i) buffers.push_back(std::make_unique<NoBuffer>());
    const NoBuffer workspace;
    const auto args = kernel_args(bound, buffers, workspace);
    EXPECT_EQ(args[2].null, true);
    EXPECT_EQ(args[2].buffer, nullptr);
    EXPECT_EQ(describe_arguments(bound)[2].at("kind"), "null");
  }
}

TEST(KernelArguments, AnOutputPassedAsNullIsSkippedNamingIt) {
  test::TempDir dir;
  const Spec spec = load(dir, spec_with_arguments({"q", {{"buffer", "o"}, {"null_when", "1"}}}));
  const Operation& op = find_operation(spec.operation);
  const auto& fields = spec.shapes[0].fields;
  const auto problem = op.make_problem(fields, 1);
  try {
    bind_arguments(spec.kernels[0], *problem, config_bindings(op.variables(fields), {{"BLOCK_M", 16}}),
                   op.number_variables(fields));
    FAIL() << "bound";
  } catch (const Outcome& o) {
    EXPECT_EQ(o.status, Status::skipped);
    EXPECT_NE(o.reason.find("kernels.k.arguments[1]: output 'o' is passed as null"), std::string::npos) << o.reason;
  }
}

// ---- signatures checked against the kernel's parameters ----

KernelParameter global(const std::string& type, const std::string& name) {
  return {name, type, KernelParameter::Space::global, 8};
}
KernelParameter value(const std::string& type, const std::string& name, std::size_t bytes) {
  return {name, type, KernelParameter::Space::value, bytes};
}

std::vector<BoundArgument> two_arguments() {
  BoundArgument buffer{BoundArgument::Kind::buffer, 0, {}, "q", {}, nullptr, "kernels.k.arguments[0]"};
  BoundArgument n{BoundArgument::Kind::value, 0, std::vector<std::byte>(4), "n", "int32", 3, "kernels.k.arguments[1]"};
  return {buffer, n};
}

TEST(SignatureCheck, AgreeingArgumentsPassAndUnknownFieldsAreNotCompared) {
  EXPECT_EQ(signature_mismatch("f", {global("float*", "q"), value("int", "n", 4)}, two_arguments()), "");
  // CUDA knows sizes only; an OpenCL struct's size is unknown.
  EXPECT_EQ(
      signature_mismatch("f", {{"", "", KernelParameter::Space::unknown, 8}, {"", "", KernelParameter::Space::unknown, 4}},
                         two_arguments()),
      "");
  EXPECT_EQ(signature_mismatch("f", {global("float*", "q"), value("Params", "p", 0)}, two_arguments()), "");
}

TEST(SignatureCheck, CountsSizesAndPointersThatDisagreeAreOneSentenceNamingBothSides) {
  EXPECT_EQ(
      signature_mismatch("f", {global("float*", "q"), value("int", "n", 4), value("ulong", "nb1", 8)}, two_arguments()),
      "kernel 'f' takes 3 parameters, kernels.k.arguments passes 2 arguments: parameter 2 `ulong nb1` gets no "
      "argument");
  EXPECT_EQ(signature_mismatch("f", {global("float*", "q")}, two_arguments()),
            "kernel 'f' takes 1 parameters, kernels.k.arguments passes 2 arguments: kernels.k.arguments[1] (n, int32) "
            "has no parameter to go to");
  EXPECT_EQ(signature_mismatch("f", {global("float*", "q"), value("ulong", "n", 8)}, two_arguments()),
            "kernels.k.arguments[1] (n, int32) is 4 bytes; parameter 1 `ulong n` of 'f' takes 8 bytes");
  EXPECT_EQ(signature_mismatch("f", {value("int", "q", 4), value("int", "n", 4)}, two_arguments()),
            "kernels.k.arguments[0] (buffer 'q') is a pointer; parameter 0 `int q` of 'f' takes a value of 4 bytes");
  EXPECT_EQ(signature_mismatch("f", {global("float*", "q"), global("float*", "n")}, two_arguments()),
            "kernels.k.arguments[1] (n, int32) is a value of 4 bytes; parameter 1 `__global float* n` of 'f' takes a "
            "pointer");
  EXPECT_NE(
      signature_mismatch("f", {global("float*", "q"), {"s", "float*", KernelParameter::Space::local, 8}}, two_arguments())
          .find("a __local pointer: attn-tune passes no local memory arguments"),
      std::string::npos);
  // CUDA: sizes only, parameters unnamed.
  EXPECT_EQ(
      signature_mismatch("f", {{"", "", KernelParameter::Space::unknown, 8}, {"", "", KernelParameter::Space::unknown, 8}},
                         two_arguments()),
      "kernels.k.arguments[1] (n, int32) is 4 bytes; parameter 1 of 'f' takes 8 bytes");
}

// ---- buffer life cycle: init, reset, role ----

TEST(BufferLifeCycle, RolesInitsAndResetsAreReadAsDeclared) {
  test::TempDir dir;
  ojson json = custom_spec();
  json["custom"]["buffers"]["m"] = {{"type", "f32"}, {"size", "N"}, {"role", "inout"}, {"init", "-inf"}};
  json["custom"]["buffers"]["l"] = {{"type", "f32"}, {"size", "N"}, {"role", "inout"}, {"init", 0.5}, {"reset", "once"}};
  json["custom"]["buffers"]["acc"] = {{"type", "f32"}, {"size", "N"}, {"role", "output"}, {"init", "zeros"}};
  json["kernels"]["naive"]["arguments"] = {"x", "y", "m", "l", "acc"};
  const Spec spec = load(dir, json);
  const auto problem = spec_operation(spec).make_problem(spec.shapes[0].fields, 7);
  const auto& b = problem->buffers();
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[0].reset, BufferReset::never);  // an input
  EXPECT_TRUE(b[1].is_output);                // poisoned, as before
  EXPECT_FALSE(b[1].poison.empty());
  EXPECT_EQ(b[1].reset, BufferReset::never);
  EXPECT_FALSE(b[2].is_output);  // state: restored, not compared
  EXPECT_EQ(b[2].reset, BufferReset::every_run);
  EXPECT_EQ(element_value(b[2].data, BufferType::f32, 3), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(b[3].reset, BufferReset::once);
  EXPECT_EQ(element_value(b[3].data, BufferType::f32, 7), 0.5);
  EXPECT_TRUE(b[4].is_output);  // read before it is written: its init, not the poison
  EXPECT_TRUE(b[4].poison.empty());
  EXPECT_EQ(b[4].reset, BufferReset::every_run);
  EXPECT_EQ(b[4].data.size(), 8u * 4);
  EXPECT_EQ(problem->outputs().size(), 2u);  // y and acc
}

TEST(BufferLifeCycle, BadValuesAreNamedWithTheirField) {
  auto [field, message] = custom_error([](ojson& s) { s["custom"]["buffers"]["x"]["init"] = "ones"; });
  EXPECT_EQ(field, "custom.buffers.x.init");
  EXPECT_NE(message.find("unknown init 'ones' (known: random, zeros, iota, or a constant"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["x"]["role"] = "state"; });
  EXPECT_EQ(field, "custom.buffers.x.role");
  EXPECT_NE(message.find("unknown role 'state' (known: input, output, inout)"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["y"]["role"] = "inout"; });
  EXPECT_EQ(field, "custom.buffers.y.role");
  EXPECT_NE(message.find("\"output\": true says otherwise"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["x"]["reset"] = "every_run"; });
  EXPECT_EQ(field, "custom.buffers.x.reset");
  EXPECT_NE(message.find("an input is never written"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) { s["custom"]["buffers"]["y"]["reset"] = "once"; });
  EXPECT_EQ(field, "custom.buffers.y.reset");
  EXPECT_NE(message.find("an output without an init is poisoned"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) {
    s["custom"]["buffers"]["x"]["role"] = "inout";
    s["custom"]["buffers"]["x"]["reset"] = "always";
  });
  EXPECT_EQ(field, "custom.buffers.x.reset");
  EXPECT_NE(message.find("unknown reset 'always' (known: once, every_run)"), std::string::npos) << message;

  std::tie(field, message) = custom_error([](ojson& s) {
    s["custom"]["buffers"]["x"]["type"] = "i32";
    s["custom"]["buffers"]["x"]["init"] = "-inf";
  });
  EXPECT_EQ(field, "custom.buffers.x.init");
  EXPECT_NE(message.find("an i32 buffer's constant must be an integer"), std::string::npos) << message;
}

TEST(BufferLifeCycle, ConstantsParse) {
  BufferInit init{};
  double v = 0;
  ASSERT_TRUE(parse_buffer_init("-1e30", init, v));
  EXPECT_EQ(init, BufferInit::constant);
  EXPECT_EQ(v, -1e30);
  ASSERT_TRUE(parse_buffer_init("inf", init, v));
  EXPECT_EQ(v, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(parse_buffer_init("1x", init, v));
  EXPECT_FALSE(parse_buffer_init("", init, v));
  EXPECT_EQ(element_value(initial_values(BufferType::f16, BufferInit::constant, 3, 1, -2.5), BufferType::f16, 2), -2.5);
}

}  // namespace
}  // namespace attn

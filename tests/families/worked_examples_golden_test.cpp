// The three worked examples (multi-head, sliding-window, linear attention), end to end: each golden spec under
// tests/data/worked_examples/ has shapes whose `inputs` field selects the seed's own
// input matrices; every configuration of every kernel that runs on the device
// is compiled, run through the evaluator like a sweep does, and its output read
// back and compared with the digits the seed prints (expected.json).
//
// The device is opencl:0:0 (PoCL in CI); ATTN_TUNE_WORKED_EXAMPLES_DEVICE=cuda:0 runs
// the CUDA kernels of the same specs on a GPU.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/backend/registry.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/measure/evaluator.hpp"
#include "tuner/spec/space.hpp"

namespace attn {
namespace {

std::string device_id() {
  const char* env = std::getenv("ATTN_TUNE_WORKED_EXAMPLES_DEVICE");
  return env && *env ? env : "opencl:0:0";
}

// Decimals shown in a printed number: "4.510163" -> 6.
int decimals(const std::string& printed) {
  const auto dot = printed.find('.');
  return dot == std::string::npos ? 0 : int(printed.size() - dot - 1);
}

// Distance in float32 units in the last place (both finite, same sign here).
long long ulps_apart(float a, float b) {
  return std::llabs(static_cast<long long>(std::bit_cast<std::int32_t>(a)) - std::bit_cast<std::int32_t>(b));
}

// Whether GOT shows the digits PRINTED shows. The seed prints float32 results:
// 2-decimal ones must round to the same digits; 8-significant-digit ones carry
// one digit beyond float32's resolution, and the seed's own float arithmetic
// left 4 of its 8 sliding-window values one ulp away from the correctly rounded
// result, so there the two floats may be one ulp apart.
bool shows_digits(float got, const std::string& printed) {
  if (fmt::format("{:.{}f}", got, decimals(printed)) == printed) return true;
  const float want = std::strtof(printed.c_str(), nullptr);
  const double half_unit = 0.5 * std::pow(10.0, -decimals(printed));
  const double ulp = std::nextafter(want, INFINITY) - want;
  return half_unit < ulp && ulps_apart(got, want) <= 1;
}

nlohmann::json expected() {
  std::ifstream in(test::data("worked_examples/expected.json"));
  return nlohmann::json::parse(in).at("shapes");
}

struct GoldenCount {
  int configs = 0;       // configurations run and compared
  int exact_digits = 0;  // of which every value printed to the seed's digits exactly
};

// Runs every configuration of SPEC's kernels for this device's backend on every
// shape, and checks each output against the seed's printed values.
GoldenCount check_spec(const std::string& spec_file) {
  const Spec spec = load_spec(test::data("worked_examples/" + spec_file));
  auto device = open_device(device_id());
  Evaluator evaluator(spec, *device, RunSettings{});
  const nlohmann::json want_all = expected();
  const std::string backend = device->info().backend;

  GoldenCount count;
  for (const KernelSpec& kernel : spec.kernels) {
    if (std::find(kernel.backends.begin(), kernel.backends.end(), backend) == kernel.backends.end()) continue;
    for (const std::string& shape_name : kernel.shapes) {
      const Shape& shape = spec.shape(shape_name);
      const auto& want = want_all.at(shape_name);
      const PreparedShape prepared = evaluator.prepare_fields(shape.name, shape.fields);
      const Space space = enumerate_space(kernel, prepared.variables);
      for (const PlannedConfig& pc : space.configs) {
        if (!pc.skip_reason.empty()) continue;
        SCOPED_TRACE(fmt::format("{} {} {}", kernel.name, shape_name, config_key(pc.config)));
        ConfigResult result;
        std::vector<std::vector<std::byte>> outputs;
        try {
          const Plan plan = evaluator.make_plan(kernel, pc.config, prepared, result);
          outputs = evaluator.run_once(plan, prepared);
        } catch (const Outcome& o) {
          ADD_FAILURE() << "did not run: " << o.reason << "\n" << o.log;
          continue;
        }
        const std::size_t cols = want.at(0).size();
        std::vector<float> out(outputs.at(0).size() / sizeof(float));
        std::memcpy(out.data(), outputs[0].data(), out.size() * sizeof(float));
        if (out.size() != want.size() * cols) {
          ADD_FAILURE() << "output has " << out.size() << " values";
          continue;
        }
        bool exact = true;
        for (std::size_t i = 0; i < want.size(); ++i)
          for (std::size_t c = 0; c < cols; ++c) {
            const std::string printed = want[i][c].get<std::string>();
            const float got = out[i * cols + c];
            EXPECT_TRUE(shows_digits(got, printed))
                << fmt::format("o[{}][{}] = {:.9g}, the seed prints {}", i, c, got, printed);
            exact = exact && fmt::format("{:.{}f}", got, decimals(printed)) == printed;
          }
        ++count.configs;
        count.exact_digits += exact;
      }
    }
  }
  return count;
}

TEST(WorkedExamplesGolden, DigitsRuleAcceptsOnlyTheFloatsRoundingNoise) {
  EXPECT_TRUE(shows_digits(3.4999986f, "3.50"));
  EXPECT_FALSE(shows_digits(3.494f, "3.50"));
  EXPECT_TRUE(shows_digits(2.5101628f, "2.5101628"));
  EXPECT_TRUE(shows_digits(std::nextafter(2.5101628f, 0.f), "2.5101628"));  // the correctly rounded 2.5101626
  EXPECT_FALSE(shows_digits(std::nextafter(std::nextafter(2.5101628f, 0.f), 0.f), "2.5101628"));
}

TEST(WorkedExamplesGolden, MultiHeadAndSlidingWindowThroughTheMultiHeadKernel) {
  const GoldenCount n = check_spec("multihead_golden.json");
  EXPECT_GT(n.configs, 10);
  RecordProperty("configs", n.configs);
  RecordProperty("exact_digits", n.exact_digits);
}

TEST(WorkedExamplesGolden, SlidingWindowThroughTheBandKernel) {
  const GoldenCount n = check_spec("sliding_window_golden.json");
  EXPECT_GT(n.configs, 5);
  RecordProperty("configs", n.configs);
  RecordProperty("exact_digits", n.exact_digits);
}

TEST(WorkedExamplesGolden, LinearAttention) {
  const GoldenCount n = check_spec("linear_golden.json");
  EXPECT_GT(n.configs, 10);
  // Every printed value is also the correctly rounded float here: all digits must match.
  EXPECT_EQ(n.exact_digits, n.configs);
  RecordProperty("configs", n.configs);
}

}  // namespace
}  // namespace attn

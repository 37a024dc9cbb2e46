// CPU references kept on disk: values round-trip, a damaged file is computed again, processes asking for one
// key at once compute it once, and a problem takes a kept reference only under a key naming all its inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "tests/support/test_support.hpp"
#include "tuner/cache/reference_store.hpp"
#include "tuner/measure/kept_reference.hpp"
#include "tuner/ops/attention.hpp"
#include "tuner/ops/linear_attention.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

const std::uint64_t kBound = 64u << 20;

nlohmann::json attention_fields() {
  return {{"dtype", "f32_f16"}, {"B", 2},      {"Hq", 4},   {"Hkv", 2},   {"Nq", 5},         {"Nkv", 9},        {"D", 8},
          {"causal", 1},        {"window", 0}, {"mask", 1}, {"sinks", 1}, {"max_bias", 8.0}, {"scale", nullptr}};
}

TEST(ReferenceStore, KeptValuesReadBackExactlyAndAMissingKeyIsNone) {
  test::TempDir dir;
  const ReferenceStore store(dir.path(), kBound);
  ASSERT_TRUE(store.enabled());
  EXPECT_FALSE(store.load("absent"));
  const std::vector<double> values = {1.0, -0.0, 3.25e-300, 1e300, -7.5};
  store.save("k1", values);
  const auto back = store.load("k1");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(std::signbit((*back)[i]), std::signbit(values[i]));
  EXPECT_EQ(*back, values);
}

TEST(ReferenceStore, ADamagedFileIsRemovedAndComputedAgain) {
  test::TempDir dir;
  const ReferenceStore store(dir.path(), kBound);
  store.save("k", {1.0, 2.0, 3.0});
  const fs::path path = store.entry_path("k");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');  // one byte of the values
  }
  EXPECT_FALSE(store.load("k"));
  EXPECT_FALSE(fs::exists(path));
  int computed = 0;
  EXPECT_EQ(store.load_or_compute("k", [&] { return ++computed, std::vector<double>{4.0}; }), std::vector<double>{4.0});
  EXPECT_EQ(computed, 1);
}

TEST(ReferenceStore, ConcurrentAsksForOneKeyComputeItOnce) {
  test::TempDir dir;
  const ReferenceStore store(dir.path(), kBound);
  std::atomic<int> computed{0};
  std::vector<std::thread> askers;
  std::vector<std::vector<double>> got(4);
  for (int t = 0; t < 4; ++t)
    askers.emplace_back([&, t] {
      got[t] = store.load_or_compute("shared", [&] {
        ++computed;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the others arrive meanwhile
        return std::vector<double>{0.5, 0.25};
      });
    });
  for (auto& a : askers) a.join();
  EXPECT_EQ(computed.load(), 1);
  for (const auto& g : got) EXPECT_EQ(g, (std::vector<double>{0.5, 0.25}));
}

TEST(ReferenceStore, TheEnvironmentOrNoFolderTurnsItOff) {
  EXPECT_FALSE(ReferenceStore({}, kBound).enabled());
  test::TempDir dir;
  ::setenv("ATTN_TUNE_REFERENCE_STORE", "0", 1);
  const bool enabled = ReferenceStore(dir.path(), kBound).enabled();
  ::unsetenv("ATTN_TUNE_REFERENCE_STORE");
  EXPECT_FALSE(enabled);
}

TEST(KeptReference, AnIdenticalProblemTakesTheKeptReferenceAndAnyOtherInputComputesItsOwn) {
  test::TempDir dir;
  const ReferenceStore store(dir.path(), kBound);
  const Operation& op = attention_operation();
  const nlohmann::json f = attention_fields();
  const Tolerance tol = op.default_tolerance(f);

  const auto first = op.make_problem(f, 3);
  EXPECT_FALSE(prepare_reference(*first, op.name(), f, 3, tol, store));  // computed, then kept
  const std::string key = reference_key(*first, op.name(), f, 3, tol);
  ASSERT_FALSE(key.empty());
  ASSERT_TRUE(store.load(key));
  const std::vector<double> computed = first->reference_values(tol);

  // What is kept is what the next identical problem verifies against: plant a value and it shows.
  std::vector<double> planted = computed;
  planted[1] += 0.5;
  store.save(key, planted);
  const auto second = op.make_problem(f, 3);
  EXPECT_TRUE(prepare_reference(*second, op.name(), f, 3, tol, store));
  EXPECT_EQ(second->reference_values(tol), planted);

  // Another seed draws other inputs; another field is another shape; both are computed, not taken.
  const auto reseeded = op.make_problem(f, 4);
  EXPECT_NE(reference_key(*reseeded, op.name(), f, 4, tol), key);
  EXPECT_FALSE(prepare_reference(*reseeded, op.name(), f, 4, tol, store));
  nlohmann::json g = f;
  g["max_bias"] = 4.0;
  const auto other = op.make_problem(g, 3);
  EXPECT_NE(reference_key(*other, op.name(), g, 3, tol), key);
  // The same fields and seed with other input bytes (an example file edited under its name) are another key.
  const auto edited = op.make_problem(f, 3);
  auto& q = const_cast<std::vector<std::byte>&>(edited->buffers().at(0).data);
  q[0] = std::byte(~std::to_integer<unsigned>(q[0]));
  EXPECT_NE(reference_key(*edited, op.name(), f, 3, tol), key);
  // So are other verified rows.
  Tolerance fewer = tol;
  fewer.max_rows = 3;
  EXPECT_NE(reference_key(*first, op.name(), f, 3, fewer), key);
}

TEST(KeptReference, SampledRowProblemsTakeTheirsTooAndAValueCountThatDoesNotFitIsRefused) {
  test::TempDir dir;
  const ReferenceStore store(dir.path(), kBound);
  const Operation& op = linear_attention_operation();
  const nlohmann::json f = {{"M", 16}, {"d", 4}, {"inputs", "random"}};
  const Tolerance tol = op.default_tolerance(f);
  const auto first = op.make_problem(f, 1);
  EXPECT_FALSE(prepare_reference(*first, op.name(), f, 1, tol, store));
  const auto second = op.make_problem(f, 1);
  EXPECT_TRUE(prepare_reference(*second, op.name(), f, 1, tol, store));
  EXPECT_EQ(second->reference_values(tol), first->reference_values(tol));
  const auto third = op.make_problem(f, 1);
  EXPECT_FALSE(third->adopt_reference(tol, {1.0, 2.0}));
}

}  // namespace
}  // namespace attn

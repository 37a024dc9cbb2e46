// The measurement store (record/measurement_store.hpp): what one sweep kept answers the next under the same
// identity, and nothing else does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/test_support.hpp"
#include "tuner/record/measurement_store.hpp"

namespace attn {
namespace {

ConfigResult result(long long x, Status status) {
  ConfigResult r;
  r.job = Job{"k", "s", {{"X", ParamValue(x)}}, ""};
  r.status = status;
  if (status == Status::ok) {
    r.timing = SampleStats::of({1.0 + x, 1.1 + x, 0.9 + x});
    r.stage = Stage::confirm;
  }
  return r;
}

DeviceInfo device(const std::string& driver) {
  DeviceInfo d;
  d.id = "cuda:0";
  d.name = "NVIDIA H200";
  d.driver_version = driver;
  return d;
}

// The suite turns the store off for every test (tests/CMakeLists.txt); these turn it on.
struct StoreOn {
  StoreOn() { ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "1", 1); }
  ~StoreOn() { ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "0", 1); }
};

TEST(MeasurementStore, WhatOneSweepKeptIsReadBackMarkedReplayedUnderTheSameIdentityOnly) {
  StoreOn on;
  test::TempDir dir;
  const nlohmann::json identity = {{"spec_sha256", "abc"}, {"seed", 1}};
  const MeasurementStore store(dir.path(), identity, device("580.1"));
  ASSERT_TRUE(store.enabled());
  EXPECT_TRUE(store.read().empty());
  EXPECT_EQ(store.write({result(0, Status::ok), result(1, Status::incorrect), result(2, Status::crashed),
                         result(3, Status::timeout)}),
            "");
  const auto read = store.read();
  ASSERT_EQ(read.size(), 2u);  // a crash or a timeout says more about that run than about the configuration
  const ConfigResult& ok = read.at(result(0, Status::ok).job.key());
  EXPECT_TRUE(ok.replayed);
  EXPECT_EQ(ok.stage, Stage::confirm);
  EXPECT_DOUBLE_EQ(ok.timing->median_ms, 1.0);
  EXPECT_EQ(read.at(result(1, Status::ok).job.key()).status, Status::incorrect);

  // A later sweep adds to it key by key.
  EXPECT_EQ(store.write({result(4, Status::ok)}), "");
  EXPECT_EQ(store.read().size(), 3u);

  // Another driver, another seed: another identity, nothing to replay.
  EXPECT_TRUE(MeasurementStore(dir.path(), identity, device("580.2")).read().empty());
  EXPECT_TRUE(MeasurementStore(dir.path(), {{"spec_sha256", "abc"}, {"seed", 2}}, device("580.1")).read().empty());
}

TEST(MeasurementStore, ADamagedFileIsMeasuredOverAndTheEnvironmentCanTurnTheStoreOff) {
  StoreOn on;
  test::TempDir dir;
  const MeasurementStore store(dir.path(), {{"seed", 1}}, device("580.1"));
  ASSERT_EQ(store.write({result(0, Status::ok)}), "");
  std::ofstream(store.path(), std::ios::trunc) << "{\"identity\": {\"seed\": 1}, \"results\": [";
  EXPECT_TRUE(store.read().empty());
  EXPECT_EQ(store.write({result(1, Status::ok)}), "");  // written over
  EXPECT_EQ(store.read().size(), 1u);

  ::setenv("ATTN_TUNE_MEASUREMENT_STORE", "0", 1);
  const MeasurementStore off(dir.path(), {{"seed", 1}}, device("580.1"));
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(off.read().empty());
  EXPECT_FALSE(MeasurementStore({}, {{"seed", 1}}, device("580.1")).enabled());  // no cache folder
}

}  // namespace
}  // namespace attn

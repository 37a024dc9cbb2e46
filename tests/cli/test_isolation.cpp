// A configuration that hangs is recorded `timeout`, one that crashes its
// process `crashed`, and the sweep goes on with every result intact.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

TEST(Isolation, HangAndCrashAreRecordedAndTheSweepGoesOn) {
  test::TempDir dir;
  const auto out = dir / "lb.json";
  const auto r = test::run_cli({"sweep", "tests/data/faults.json", "--device", "opencl:0:0", "--out", out.string(),
                                "--watchdog", "5", "--min-samples", "2", "--max-time", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& e : lb.at("groups")[0].at("entries")) by_key[e.at("key")] = e;

  EXPECT_EQ(by_key.at("FAULT=0,WG=16").at("status"), "ok");
  EXPECT_EQ(by_key.at("FAULT=4,WG=16").at("status"), "timeout");
  EXPECT_NE(by_key.at("FAULT=4,WG=16").at("reason").get<std::string>().find("watchdog"), std::string::npos);
  EXPECT_EQ(by_key.at("FAULT=5,WG=16").at("status"), "crashed");
  EXPECT_NE(by_key.at("FAULT=5,WG=16").at("reason").get<std::string>().find("signal"), std::string::npos)
      << by_key.at("FAULT=5,WG=16").dump();
  // The configuration after the crash ran in a fresh worker.
  EXPECT_EQ(by_key.at("FAULT=3,WG=16").at("status"), "incorrect");
}

}  // namespace
}  // namespace attn

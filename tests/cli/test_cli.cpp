// The command line: exit codes, messages a user can act on, JSON output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

namespace attn {
namespace {

using test::run_cli;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(Cli, NoSubcommandIsAUsageError) {
  const auto r = run_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err + r.out, "sweep")) << r.err;
}

TEST(Cli, HelpTeaches) {
  const auto r = run_cli({"sweep", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--device", "--shape", "--resume", "--out", "--max-noise", "--watchdog", "--json"})
    EXPECT_TRUE(contains(r.out, option)) << option;
}

TEST(Cli, UnknownOptionExitsTwo) {
  const auto r = run_cli({"sweep", "tests/data/testbed.json", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--bogus")) << r.err;
}

TEST(Cli, MalformedSpecNamesFileAndField) {
  test::TempDir dir;
  const auto spec = dir.write("bad.json", R"({"attn_tune_spec": 1, "name": "x", "operation": "attention",
    "sources": {"opencl": "nothere.cl"}, "shapes": {}, "kernels": {}})");
  const auto r = run_cli({"sweep", spec.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, spec.string() + ": sources.opencl: kernel source not found")) << r.err;
}

TEST(Cli, MissingDeviceSaysWhichDevicesExist) {
  const auto r = run_cli({"sweep", "tests/data/testbed.json", "--device", "opencl:7:0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "no device 'opencl:7:0'")) << r.err;
  EXPECT_TRUE(contains(r.err, "opencl:0:0")) << "should list the devices found: " << r.err;
}

TEST(Cli, DevicesListsPoclAndExplainsCuda) {
  const auto r = run_cli({"devices", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("devices").empty());
  bool pocl = false;
  for (const auto& d : j.at("devices")) pocl = pocl || contains(d.at("platform").get<std::string>(), "Portable Computing");
  EXPECT_TRUE(pocl) << r.out;
  bool cuda_note = false;
  for (const auto& n : j.at("notes")) cuda_note = cuda_note || n.get<std::string>().rfind("cuda:", 0) == 0;
  EXPECT_TRUE(cuda_note) << "without a driver, devices must say why there is no CUDA device: " << r.out;
}

TEST(Cli, BenchRejectsAnUnknownParameter) {
  const auto r = run_cli({"bench", "tests/data/testbed.json", "--set", "BLOCK_Q=3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "'BLOCK_Q' is not a parameter of kernel 'naive'")) << r.err;
}

TEST(Cli, BenchTimesOneConfigurationWithStatistics) {
  const auto r = run_cli({"bench", "tests/data/testbed.json", "--set", "WG=8", "--shape", "small", "--min-samples", "5",
                          "--max-time", "0.05", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0].at("status"), "ok");
  EXPECT_EQ(j[0].at("key"), "WG=8,FAULT=0,REPEAT=1");
  for (const char* stat : {"median_ms", "min_ms", "q1_ms", "q3_ms", "rel_noise", "samples"})
    EXPECT_TRUE(j[0].at("timing").contains(stat)) << stat;
}

TEST(Cli, SweepJsonAndShapeOverride) {
  test::TempDir dir;
  const auto r = run_cli({"sweep", "tests/data/testbed.json", "--shape", "small,Nq=20", "--out", (dir / "lb.json").string(),
                          "--min-samples", "2", "--max-time", "0.01", "--json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("groups").size(), 1u);
  EXPECT_EQ(j.at("groups")[0].at("shape"), "small[Nq=20]");
  EXPECT_EQ(j.at("groups")[0].at("shape_fields").at("Nq"), 20);
  EXPECT_EQ(j.at("spec").at("shape_filter"), "small,Nq=20");
}

TEST(Cli, BadShapeOverrideIsAUsageError) {
  const auto r = run_cli({"sweep", "tests/data/testbed.json", "--shape", "Hq=3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "must be a multiple of Hkv")) << r.err;
}

}  // namespace
}  // namespace attn

// A shape too large for the host's memory is the host's problem, not the
// kernel's: every configuration of it gets `host_oom` with the size asked for,
// in a worker and in-process alike, and the run exits 1 (nothing ran ok).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

void expect_host_oom(const std::vector<std::string>& extra) {
  // With overcommit "always" (1) the allocation succeeds and the OOM killer
  // ends the test instead; Linux's default (0) refuses what cannot fit.
  if (std::ifstream f("/proc/sys/vm/overcommit_memory"); f) {
    int mode = 0;
    f >> mode;
    if (mode == 1) GTEST_SKIP() << "vm.overcommit_memory is 1: a huge allocation would not fail here";
  }
  test::TempDir dir;
  const fs::path out = dir / "lb.json";
  // 2*10^9 query and key rows: over a TiB of inputs, far beyond any CI machine.
  std::vector<std::string> args = {"sweep", "tests/data/resume.json", "--device", "opencl:0:0", "--out", out.string(),
                                   "--shape", "Nq=2000000000,Nkv=2000000000", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("host_oom"), std::string::npos) << r.out;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  int oom = 0;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) {
      EXPECT_EQ(e.at("status"), "host_oom") << e.dump();
      EXPECT_NE(e.value("reason", "").find("GiB"), std::string::npos) << "the size asked for: " << e.dump();
      ++oom;
    }
  EXPECT_GT(oom, 0);
}

TEST(HostOom, AShapeTheHostCannotHoldIsHostOomInAWorker) { expect_host_oom({}); }

TEST(HostOom, AShapeTheHostCannotHoldIsHostOomInProcess) { expect_host_oom({"--no-isolate"}); }

}  // namespace
}  // namespace attn

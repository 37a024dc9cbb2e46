// A shape too large for the host's memory is the host's problem, not the
// kernel's: every configuration of it gets `host_oom` with the size asked for,
// in a worker and in-process alike, and the run exits 1 (nothing ran ok).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// Runs ARGS with the address space of this process and its children capped at
// LIMIT bytes (a worker inherits it), so that an allocation beyond it fails
// at once instead of paging the test machine to death.
test::CommandResult run_with_address_space(const std::vector<std::string>& args, rlim_t limit) {
  rlimit before{};
  getrlimit(RLIMIT_AS, &before);
  rlimit capped = before;
  capped.rlim_cur = limit;
  setrlimit(RLIMIT_AS, &capped);
  auto r = test::run_cli(args);
  setrlimit(RLIMIT_AS, &before);
  return r;
}

void expect_host_oom(const std::vector<std::string>& extra) {
  test::TempDir dir;
  const fs::path out = dir / "lb.json";
  // 3*10^7 query and key rows: q alone is 7.15 GiB, beyond the 6 GB the run may map.
  std::vector<std::string> args = {"sweep",   "tests/data/resume.json",   "--device", "opencl:0:0", "--out", out.string(),
                                   "--shape", "Nq=30000000,Nkv=30000000", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_with_address_space(args, rlim_t{6} * 1000 * 1000 * 1000);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("host_oom"), std::string::npos) << r.out;
  const auto lb = nlohmann::json::parse(read_text_file(out));
  int oom = 0;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) {
      EXPECT_EQ(e.at("status"), "host_oom") << e.dump();
      EXPECT_NE(e.value("reason", "").find("7.15 GiB"), std::string::npos) << "the size asked for: " << e.dump();
      ++oom;
    }
  EXPECT_GT(oom, 0);
}

TEST(HostOom, AShapeTheHostCannotHoldIsHostOomInAWorker) { expect_host_oom({}); }

TEST(HostOom, AShapeTheHostCannotHoldIsHostOomInProcess) { expect_host_oom({"--no-isolate"}); }

}  // namespace
}  // namespace attn

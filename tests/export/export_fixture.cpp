#include "tests/export/export_fixture.hpp"

#include "tests/export/leaderboard_fixture.hpp"
#include "tests/support/test_support.hpp"

namespace attn::test {
namespace {

using Params = std::vector<std::pair<std::string, long long>>;
const Params A{{"BLOCK_M", 64}, {"BLOCK_N", 64}}, B{{"BLOCK_M", 128}, {"BLOCK_N", 64}}, C{{"BLOCK_M", 64}, {"BLOCK_N", 32}},
    E{{"BLOCK_M", 32}, {"BLOCK_N", 64}};

FixtureEntry ok(const Params& p, double ms) { return {p, ms}; }
FixtureEntry checked(const Params& p, double ms, bool batch_invariant) {
  FixtureEntry e{p, ms};
  e.checks = {{"deterministic", true}, {"batch_invariant", batch_invariant}, {"cache_growth", nullptr}};
  return e;
}
FixtureEntry failed(const Params& p, const std::string& status, const std::string& reason) { return {p, 0, status, reason}; }

FixtureGroup prefill(const std::string& shape, const std::string& dtype, long long n, std::vector<FixtureEntry> entries) {
  return {"prefill", shape, attention_fields(dtype, 128, 1, n, n), std::move(entries), ""};
}

}  // namespace

std::vector<std::filesystem::path> write_export_fixture(const TempDir& dir) {
  const auto h200 = fixture_leaderboard(
      kH200, "fixture",
      {prefill("prefill-1k", "f16", 1024, {ok(A, 1.00), ok(B, 1.05), ok(C, 1.50), ok(E, 1.20)}),
       prefill("prefill-4k", "f16", 4096,
               {ok(B, 3.00), ok(A, 3.30), ok(E, 3.60), failed(C, "launch_failed", "too many resources requested")})});
  const auto h100 = fixture_leaderboard(
      kH100, "fixture",
      {prefill("prefill-1k", "f16", 1024, {checked(C, 1.00, false), checked(B, 1.04, true), ok(A, 1.60), ok(E, 1.20)})});
  const auto a100 = fixture_leaderboard(
      kA100, "fixture",
      {prefill("prefill-1k", "f16", 1024,
               {ok(C, 1.00), ok(E, 1.20), ok(B, 1.60), failed(A, "skipped", "needs 96 KiB of shared memory")})});
  const auto pocl = fixture_leaderboard(
      kPocl, "fixture",
      {prefill("prefill-1k", "f32_f16", 1024,
               {ok(C, 1.00), ok(E, 1.20), ok(A, 1.40), failed(B, "incorrect", "rel_l2 0.31 > 0.0001")})});
  return {dir.write("h200.json", h200.dump(2)), dir.write("h100.json", h100.dump(2)), dir.write("a100.json", a100.dump(2)),
          dir.write("pocl.json", pocl.dump(2))};
}

}  // namespace attn::test

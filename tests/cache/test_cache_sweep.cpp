// The compile cache in real sweeps on PoCL: a second identical sweep compiles
// nothing, a changed header recompiles, a damaged entry is rebuilt, and two
// sweeps sharing one cache at once both finish.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

// The testbed kernel with a header of its own beside it; FAULT=1 does not compile.
struct CachedSpec {
  test::TempDir dir;
  fs::path spec, cache;

  CachedSpec() {
    dir.write("extra.h", "// a header the kernel includes\n#define EXTRA_UNUSED 1\n");
    dir.write("kernel.cl", "#include \"extra.h\"\n" + read_text_file(test::data("attention_testbed.cl")));
    nlohmann::json s = {
        {"attn_tune_spec", 1},
        {"name", "cached"},
        {"operation", "attention"},
        {"sources", {{"opencl", "kernel.cl"}}},
        {"include_dirs", {(test::source_dir() / "kernels").string()}},
        {"verify", {{"rel_l2", 1e-4}, {"max_abs", 2e-3}}},
        {"shapes", {{"small", {{"B", 1}, {"Hq", 2}, {"Nq", 32}, {"D", 32}}}}},
        {"kernels",
         {{"naive",
           {{"params", {{"WG", {8, 16}}, {"FAULT", {0, 1}}, {"REPEAT", {1}}}},
            {"defines", {{"DK", "D"}}},
            {"launches", {{{"entry", "testbed_attention"}, {"grid", {"ceil_div(Nq, WG)", "Hq", "B"}}, {"block", {"WG"}}}}},
            {"workspace_bytes", "64"}}}}}};
    spec = dir.write("cached.json", s.dump(2));
    cache = dir / "cache";
  }

  test::CommandResult sweep(const std::string& out, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {
        "sweep",       spec.string(),  "--device",      "opencl:0:0", "--out",      (dir / out).string(),
        "--cache-dir", cache.string(), "--min-samples", "3",          "--max-time", "0.05",
        "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  }

  // configuration key -> the leaderboard entry
  std::map<std::string, nlohmann::json> entries(const std::string& out) const {
    const auto lb = nlohmann::json::parse(read_text_file(dir / out));
    std::map<std::string, nlohmann::json> m;
    for (const auto& g : lb.at("groups"))
      for (const auto& e : g.at("entries")) m[e.at("key").get<std::string>()] = e;
    return m;
  }

  // The compiled kernels' entries (not the CPU references kept beside them, under references/).
  std::vector<fs::path> cache_entries() const {
    std::vector<fs::path> found;
    for (const auto& f : fs::recursive_directory_iterator(cache / "v1"))
      if (f.path().extension() == ".entry") found.push_back(f.path());
    return found;
  }
};

TEST(CompileCacheSweep, ASecondIdenticalSweepCompilesNothingAndReportsTheSame) {
  CachedSpec s;
  const auto first = s.sweep("first.json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("compile:     4 compiled, 0 from cache"), std::string::npos) << first.err;
  EXPECT_EQ(s.cache_entries().size(), 4u) << "two programs and two failures cached";

  const auto second = s.sweep("second.json");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("compile:     0 compiled, 4 from cache"), std::string::npos) << second.err;

  const auto a = s.entries("first.json"), b = s.entries("second.json");
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), a.size());
  for (const auto& [key, e] : b) {
    EXPECT_TRUE(e.value("compile_cached", false)) << key;
    EXPECT_FALSE(a.at(key).value("compile_cached", false)) << key;
    EXPECT_EQ(e.at("status"), a.at(key).at("status")) << key;
    EXPECT_EQ(e.at("resources"), a.at(key).at("resources")) << key;
    EXPECT_EQ(e.value("log", ""), a.at(key).value("log", "")) << key;
    if (e.at("status") == "compile_failed") {
      EXPECT_EQ(e.at("reason"), a.at(key).at("reason")) << key;
    }
  }
}

TEST(CompileCacheSweep, AChangedIncludedHeaderCompilesAgain) {
  CachedSpec s;
  ASSERT_EQ(s.sweep("first.json").exit_code, 0);
  s.dir.write("extra.h", "// a header the kernel includes, edited\n#define EXTRA_UNUSED 2\n");
  const auto again = s.sweep("second.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("compile:     4 compiled, 0 from cache"), std::string::npos) << again.err;
}

// PoCL appends POCL_EXTRA_BUILD_FLAGS to every build (ctest sets -cl-opt-disable): other flags, other binaries.
TEST(CompileCacheSweep, OtherPoclExtraBuildFlagsCompileAgain) {
  CachedSpec s;
  const char* set = std::getenv("POCL_EXTRA_BUILD_FLAGS");
  const std::string before = set ? set : "";
  ASSERT_EQ(s.sweep("first.json").exit_code, 0);
  ::setenv("POCL_EXTRA_BUILD_FLAGS", (before + " -cl-mad-enable").c_str(), 1);
  const auto other = s.sweep("second.json");
  if (set) ::setenv("POCL_EXTRA_BUILD_FLAGS", before.c_str(), 1);
  else ::unsetenv("POCL_EXTRA_BUILD_FLAGS");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("compile:     4 compiled, 0 from cache"), std::string::npos) << other.err;
  const auto same = s.sweep("third.json");
  EXPECT_NE(same.err.find("compile:     0 compiled, 4 from cache"), std::string::npos) << same.err;
}

TEST(CompileCacheSweep, ACorruptedEntryIsReportedAndRebuilt) {
  CachedSpec s;
  ASSERT_EQ(s.sweep("first.json").exit_code, 0);
  const auto files = s.cache_entries();
  ASSERT_EQ(files.size(), 4u);
  for (const auto& f : files) {
    std::string bytes = read_text_file(f);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x55);
    std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
  }
  auto again = s.sweep("second.json", {"--no-isolate"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("compile:     4 compiled, 0 from cache"), std::string::npos) << again.err;
  for (const auto& [key, e] : s.entries("second.json"))
    EXPECT_EQ(e.at("status"), s.entries("first.json").at(key).at("status")) << key;
  // Rebuilt: a third sweep reads them all again.
  const auto third = s.sweep("third.json");
  EXPECT_NE(third.err.find("compile:     0 compiled, 4 from cache"), std::string::npos) << third.err;
}

TEST(CompileCacheSweep, ACorruptedEntryIsNamedAtDebugLevel) {
  CachedSpec s;
  ASSERT_EQ(s.sweep("first.json").exit_code, 0);
  for (const auto& f : s.cache_entries()) {
    std::string bytes = read_text_file(f);
    bytes.back() = static_cast<char>(bytes.back() ^ 1);
    std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
  }
  auto r =
      test::run_cli({"-v", "sweep", s.spec.string(), "--device", "opencl:0:0", "--out", (s.dir / "v.json").string(),
                     "--cache-dir", s.cache.string(), "--min-samples", "3", "--max-time", "0.05", "-q", "--no-isolate"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = r.out + r.err;  // spdlog's default logger writes to stdout
  EXPECT_NE(log.find("is corrupted (its checksum does not match its contents): compiling again"), std::string::npos) << log;
}

TEST(CompileCacheSweep, TwoSweepsSharingOneCacheAtOnceBothFinish) {
  CachedSpec s;
  auto a = std::async(std::launch::async, [&] { return s.sweep("a.json"); });
  auto b = std::async(std::launch::async, [&] { return s.sweep("b.json"); });
  const auto ra = a.get(), rb = b.get();
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  const auto ea = s.entries("a.json"), eb = s.entries("b.json");
  ASSERT_EQ(ea.size(), 4u);
  for (const auto& [key, e] : ea) EXPECT_EQ(eb.at(key).at("status"), e.at("status")) << key;
  EXPECT_EQ(s.cache_entries().size(), 4u);
  const auto c = s.sweep("c.json");
  EXPECT_NE(c.err.find("compile:     0 compiled, 4 from cache"), std::string::npos) << c.err;
}

TEST(CompileCacheSweep, NoCacheReadsAndWritesNothing) {
  CachedSpec s;
  const auto r = s.sweep("first.json", {"--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(s.cache));
}

TEST(CompileCacheSweep, CompileReportsHitsOnItsSecondRun) {
  CachedSpec s;
  const std::vector<std::string> args = {"compile",    s.spec.string(), "--device",
                                         "opencl:0:0", "--cache-dir",   s.cache.string()};
  const auto first = test::run_cli(args);
  EXPECT_NE(first.err.find("4 compiled, 0 from cache"), std::string::npos) << first.err;
  const auto second = test::run_cli(args);
  EXPECT_NE(second.err.find("0 compiled, 4 from cache"), std::string::npos) << second.err;
  EXPECT_EQ(second.exit_code, first.exit_code);
}

}  // namespace
}  // namespace attn

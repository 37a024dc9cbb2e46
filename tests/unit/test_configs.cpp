// The specs shipped under configs/: each loads, and no kernel is defined twice
// (a spec that shares a kernel extends the file that defines it).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/load/spec_loader.hpp"

namespace attn {
namespace {

std::vector<std::filesystem::path> shipped_specs() {
  std::vector<std::filesystem::path> specs;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "configs"))
    if (e.path().extension() == ".json") specs.push_back(e.path());
  std::sort(specs.begin(), specs.end());
  return specs;
}

TEST(ShippedSpecs, EverySpecUnderConfigsLoads) {
  const auto specs = shipped_specs();
  ASSERT_FALSE(specs.empty());
  for (const auto& path : specs) EXPECT_NO_THROW(load_spec(path)) << path;
}

// A kernel's definition is its launches: entry points and their geometry. Two kernel
// blocks that write the same launches are one kernel written twice.
TEST(ShippedSpecs, NoTwoKernelBlocksWriteTheSameLaunches) {
  std::map<std::string, std::string> written;  // launches as JSON -> "file: kernels.name"
  for (const auto& path : shipped_specs()) {
    const auto doc = nlohmann::json::parse(read_text_file(path));
    for (const auto& [name, block] : doc.at("kernels").items()) {
      if (!block.is_object() || !block.contains("launches")) continue;
      const std::string where = path.filename().string() + ": kernels." + name;
      const auto [it, added] = written.emplace(block.at("launches").dump(), where);
      EXPECT_TRUE(added) << where << " repeats the launches of " << it->second
                         << ": extend that file and override only what differs (docs/spec-format.md)";
    }
  }
}

}  // namespace
}  // namespace attn

// `bench --emit-inputs`: the files hold exactly the inputs the operation draws for each shape and seed (the
// bytes attn-tune uploads and verifies against), so a comparison script runs on attn-tune's data without a
// copy of its random streams.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/export/problem_inputs.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

TEST(EmitInputs, EachInputFileHoldsTheBytesTheOperationDrawsForThatShapeAndSeed) {
  test::TempDir dir;
  const auto r = test::run_cli(
      {"bench", "configs/similarity_small.json", "-k", "fused", "--seed", "7", "--emit-inputs", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto manifest = nlohmann::json::parse(read_text_file(dir / "inputs.json"));
  EXPECT_EQ(manifest.at("schema"), kInputsSchema);
  EXPECT_EQ(manifest.at("operation"), "similarity");
  EXPECT_EQ(manifest.at("seed"), 7);
  EXPECT_EQ(manifest.at("byte_order"), "little");

  const Spec spec = load_spec(test::source_dir() / "configs/similarity_small.json");
  const Operation& op = spec_operation(spec);
  ASSERT_GE(manifest.at("shapes").size(), 2u);
  for (const auto& s : manifest.at("shapes")) {
    const auto problem = op.make_problem(spec.shape(s.at("shape")).fields, 7);
    const auto& want = problem->buffers();
    ASSERT_EQ(s.at("buffers").size(), want.size()) << s.at("shape");
    int inputs = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const auto& b = s.at("buffers").at(i);
      EXPECT_EQ(b.at("name"), want[i].name);
      EXPECT_EQ(b.at("bytes"), want[i].data.size());
      if (want[i].is_output) {
        EXPECT_EQ(b.at("role"), "output");
        EXPECT_FALSE(b.contains("file"));
        continue;
      }
      ++inputs;
      EXPECT_EQ(file_bytes(dir / b.at("file").get<std::string>()), want[i].data) << s.at("shape") << " " << want[i].name;
    }
    EXPECT_GE(inputs, 2) << s.at("shape");
  }
  // Another seed, other data: the files are the seed's, not a fixed pattern.
  test::TempDir other;
  ASSERT_EQ(test::run_cli({"bench", "configs/similarity_small.json", "-k", "fused", "--seed", "8", "--emit-inputs",
                           other.path().string()})
                .exit_code,
            0);
  const std::string first = manifest.at("shapes").at(0).at("buffers").at(0).at("file");
  EXPECT_NE(file_bytes(dir / first), file_bytes(other / first));
}

}  // namespace
}  // namespace attn

// attn-tune bench --emit-launch: the files another harness launches a configuration from.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "kernels/common/attn_params.h"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

using test::run_cli;

std::string spec(const std::string& name) { return (test::source_dir() / "configs" / name).string(); }

std::vector<char> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const nlohmann::json& shape_of(const nlohmann::json& manifest, const std::string& name) {
  for (const auto& s : manifest.at("shapes"))
    if (s.at("shape") == name) return s;
  ADD_FAILURE() << "no shape " << name;
  static const nlohmann::json none;
  return none;
}

// The params file holds exactly the struct a kernel receives for the shape.
void expect_params(const std::filesystem::path& dir, const nlohmann::json& shape, const attn_params& expected) {
  const nlohmann::json& param_arg = shape.at("args").back();
  EXPECT_EQ(param_arg.at("kind"), "value");
  EXPECT_EQ(param_arg.at("bytes"), sizeof(attn_params));
  const std::vector<char> bytes = read_bytes(dir / param_arg.at("file").get<std::string>());
  ASSERT_EQ(bytes.size(), sizeof(attn_params));
  attn_params got;
  std::memcpy(&got, bytes.data(), sizeof got);
  EXPECT_EQ(got.B, expected.B);
  EXPECT_EQ(got.Hq, expected.Hq);
  EXPECT_EQ(got.Hkv, expected.Hkv);
  EXPECT_EQ(got.Nq, expected.Nq);
  EXPECT_EQ(got.Nkv, expected.Nkv);
  EXPECT_EQ(got.D, expected.D);
  EXPECT_EQ(got.q_per_kv, expected.q_per_kv);
  EXPECT_EQ(got.kv_offset, expected.kv_offset);
  EXPECT_EQ(got.causal, expected.causal);
  EXPECT_EQ(got.window, expected.window);
  EXPECT_EQ(got.has_mask, expected.has_mask);
  EXPECT_EQ(got.has_sinks, expected.has_sinks);
  EXPECT_FLOAT_EQ(got.scale, expected.scale);
  EXPECT_FLOAT_EQ(got.max_bias, expected.max_bias);
  EXPECT_FLOAT_EQ(got.m0, expected.m0);
  EXPECT_FLOAT_EQ(got.m1, expected.m1);
  EXPECT_EQ(got.n_head_log2, expected.n_head_log2);
}

TEST(EmitLaunch, AnOpenClConfigurationGetsItsArgumentsParamsAndBuildOptions) {
  test::TempDir dir;
  const auto r = run_cli({"bench", spec("flash_attn_f32_f16_small.json"), "-k", "prefill", "--preset", "B", "--emit-launch",
                          dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto manifest = nlohmann::json::parse(read_text_file(dir / "launch.json"));
  EXPECT_EQ(manifest.at("schema"), "attn-tune.launch/1");
  EXPECT_EQ(manifest.at("kernel"), "prefill");
  EXPECT_EQ(manifest.at("preset"), "B");
  EXPECT_EQ(manifest.at("source").at("backend"), "opencl");
  EXPECT_GE(manifest.at("source").at("files").size(), 2u) << "the source and attn_params.h";

  // B=1 Hq=4 Hkv=2 Nq=80 Nkv=128 D=128 causal window=48 sinks max_bias=8
  const auto& s = shape_of(manifest, "prefill-80x128-d128-causal-window-alibi-sinks");
  const std::vector<std::string> names = {"q", "k", "v", "mask", "sinks", "o", "ws", "params"};
  ASSERT_EQ(s.at("args").size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(s.at("args")[i].at("name"), names[i]);
  EXPECT_EQ(s.at("args")[0].at("bytes"), 1 * 4 * 80 * 128 * 4) << "q is f32";
  EXPECT_EQ(s.at("args")[1].at("bytes"), 1 * 2 * 128 * 128 * 2) << "k is f16";
  EXPECT_EQ(s.at("args")[5].at("kind"), "output");
  EXPECT_EQ(s.at("program").at("format"), "opencl-source");
  EXPECT_NE(s.at("program").at("options").dump().find("-DBLOCK_M="), std::string::npos);
  ASSERT_EQ(s.at("launches").size(), 1u);
  EXPECT_EQ(s.at("launches")[0].at("entry"), "flash_attn_f32_f16");
  EXPECT_GT(s.at("flops").get<double>(), 0);
  const attn_params expected{1, 4, 2, 80, 128, 128, 2, 48, 1, 48, 0, 1, 1 / std::sqrt(128.f), 8.f, 0.25f, 0.5f, 4, 0};
  expect_params(dir.path(), s, expected);
}

TEST(EmitLaunch, AConfigurationTheConstraintsExcludeIsRecordedAndFails) {
  test::TempDir dir;
  // DV_TILE = 128 with BLOCK_N = 64 needs more than 48 KiB at D = 128, and D = 64 is not a multiple of it.
  const auto r = run_cli({"bench", spec("flash_attn_f32_f16_small.json"), "-k", "prefill", "--set",
                          "BLOCK_M=16,BLOCK_N=64,DV_TILE=128", "--emit-launch", dir.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto manifest = nlohmann::json::parse(read_text_file(dir / "launch.json"));
  for (const auto& s : manifest.at("shapes")) EXPECT_TRUE(s.contains("skipped")) << s.dump();
}

// A pipeline whose launches take their own arguments: each launch carries its list, the shape none of its own.
TEST(EmitLaunch, EachLaunchOfAPipelineGetsItsOwnArgumentList) {
  test::TempDir dir;
  const auto r = run_cli({"bench", test::data("kernels_as_they_are/split_pipeline.json").string(), "--set", "SPLITS=4,WG=2",
                          "--emit-launch", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto manifest = nlohmann::json::parse(read_text_file(dir / "launch.json"));
  const auto& s = shape_of(manifest, "b1-h2-n9-d8");
  EXPECT_FALSE(s.contains("args")) << "the launches take different lists";
  const auto& launches = s.at("launches");
  ASSERT_EQ(launches.size(), 3u);
  auto names = [](const nlohmann::json& args) {
    std::vector<std::string> out;
    for (const auto& a : args) out.push_back(a.at("name"));
    return out;
  };
  EXPECT_EQ(names(launches[0].at("args")), (std::vector<std::string>{"q", "ws", "elements", "scale"}));
  EXPECT_EQ(names(launches[1].at("args")),
            (std::vector<std::string>{"ws", "k", "v", "part_o", "part_m", "part_l", "rows", "n_kv", "head_dim"}));
  EXPECT_EQ(names(launches[2].at("args")),
            (std::vector<std::string>{"part_o", "part_m", "part_l", "o", "rows", "head_dim"}));
  EXPECT_EQ(launches[1].at("args")[0].at("bytes"), 1 * 2 * 9 * 8 * 4) << "the workspace the prepass writes";
  EXPECT_EQ(launches[1].at("args")[3].at("bytes"), 1 * 2 * 9 * 4 * 8 * 4) << "part_o: a row of D per split";
  EXPECT_EQ(launches[2].at("args")[4].at("value"), 18);
}

#ifdef ATTN_TUNE_WITH_CUDA
TEST(EmitLaunch, ACudaConfigurationGetsItsNvrtcBinaryOncePerDefineSet) {
  test::TempDir dir;
  const auto r = run_cli({"bench", spec("flash_attn_fwd_small.json"), "--preset", "M64", "-s",
                          "fp16-d64-small,fp16-d64-gqa-features", "--emit-launch", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto manifest = nlohmann::json::parse(read_text_file(dir / "launch.json"));
  ASSERT_EQ(manifest.at("shapes").size(), 2u);
  const auto& plain = shape_of(manifest, "fp16-d64-small");
  const auto& features = shape_of(manifest, "fp16-d64-gqa-features");
  EXPECT_EQ(plain.at("program"), features.at("program")) << "same -D set: compiled once";
  EXPECT_EQ(plain.at("program").at("format"), "cubin");
  const std::vector<char> cubin = read_bytes(dir / plain.at("program").at("file").get<std::string>());
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(std::string(cubin.data(), 4),
            "\x7f"
            "ELF");
  EXPECT_GT(features.at("resources").at("flash_attn_fwd").at("registers").get<int>(), 0);
  EXPECT_EQ(features.at("launches")[0].at("grid"), nlohmann::json({1, 4, 2})) << "ceil(50 / 64) x Hq x B";
  // B=2 Hq=4 Hkv=2 Nq=50 Nkv=150 D=64 causal window=40 mask sinks max_bias=8
  const attn_params expected{2, 4, 2, 50, 150, 64, 2, 100, 1, 40, 1, 1, 0.125f, 8.f, 0.25f, 0.5f, 4, 0};
  expect_params(dir.path(), features, expected);
}
#endif

}  // namespace
}  // namespace attn

// Kernels as inference engines write them, swept on PoCL without rewriting
// them to attn-tune's contract: optional inputs passed as null pointers where
// the shape turns them off, and signatures checked before the first run.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/pocl_sweep.hpp"
#include "tests/support/test_support.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

using ojson = nlohmann::ordered_json;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::filesystem::path example(const std::string& name) { return test::data("kernels_as_they_are/" + name); }

// NAME's spec with EDIT applied, written to DIR with its source's path made absolute.
std::filesystem::path edited(const test::TempDir& dir, const std::string& name, const std::function<void(ojson&)>& edit) {
  ojson spec = ojson::parse(read_text_file(example(name)));
  for (auto& [backend, source] : spec["sources"].items()) source = example(source.get<std::string>()).string();
  edit(spec);
  return dir.write("spec.json", spec.dump(2));
}

SweepOutcome sweep(const std::filesystem::path& spec, const test::TempDir& dir) {
  Progress quiet(stderr, false, true);
  return run_sweep(test::pocl_verify_options(spec, dir), quiet);
}

// status -> count over every entry of LB; each entry's reason kept in REASONS.
std::map<std::string, int> statuses(const nlohmann::json& lb, std::vector<std::string>* reasons = nullptr) {
  std::map<std::string, int> n;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) {
      ++n[e.at("status").get<std::string>()];
      if (reasons) reasons->push_back(g.at("shape").get<std::string>() + ": " + e.value("reason", ""));
    }
  return n;
}

TEST(OptionalInputs, AKernelBranchingOnNullMaskAndSinksVerifiesWithAndWithoutThem) {
  test::TempDir dir;
  const SweepOutcome out = sweep(example("optional_inputs.json"), dir);
  const nlohmann::json lb = out.leaderboard;
  int ok = 0;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries")) {
      EXPECT_EQ(e.at("status"), "ok") << g.at("shape") << ": " << e.dump().substr(0, 1500);
      ok += e.at("status") == "ok";
      // The record says what the kernel got: a null pointer exactly where the shape has no such input.
      const std::string shape = g.at("shape");
      const auto& args = e.at("launches")[0].at("arguments");
      EXPECT_EQ(args[3].at("kind"), contains(shape, "mask") ? "buffer" : "null") << shape;
      EXPECT_EQ(args[4].at("kind"), contains(shape, "sinks") ? "buffer" : "null") << shape;
    }
  EXPECT_EQ(ok, 8);  // 4 shapes x 2 work-group sizes
}

// The same kernel given attn-tune's old stand-in for an absent input, a zeroed buffer: "no sinks" becomes a
// sink logit of 0, and verification (which follows the shape: no sinks) catches it.
TEST(OptionalInputs, AZeroedBufferInsteadOfNullIsCaughtByVerification) {
  test::TempDir dir;
  const auto spec = edited(dir, "optional_inputs.json", [](ojson& s) {
    s["kernels"]["optional"]["arguments"][4] = "sinks";
    s["shapes"].erase("mask");
    s["shapes"].erase("sinks");
    s["shapes"].erase("mask-sinks");
  });
  std::vector<std::string> reasons;
  auto n = statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("incorrect"), 2) << testing::PrintToString(reasons);
}

TEST(SignatureCheck, AMissingArgumentIsCaughtBeforeTheRunNamingTheParameterAndStopsTheSweep) {
  test::TempDir dir;
  const auto spec = edited(dir, "optional_inputs.json", [](ojson& s) {
    s["kernels"]["optional"]["params"]["WG"] = {1, 2, 4, 8};
    s["kernels"]["optional"]["arguments"].erase(12);
  });
  const SweepOutcome out = sweep(spec, dir);
  std::vector<std::string> reasons;
  const auto n = statuses(out.leaderboard, &reasons);
  EXPECT_EQ(n.at("compile_failed"), 3) << testing::PrintToString(reasons);  // the first 3, then the sweep stops
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "kernel 'attn_optional' takes 13 parameters, kernels.optional.arguments passes 12 arguments: "
                       "parameter 12 `ulong nb_mask2` gets no argument"))
      << reasons.at(0);
  EXPECT_TRUE(contains(out.stopped_early, "the first 3 configurations failed with the same error")) << out.stopped_early;
}

TEST(SignatureCheck, AnExtraArgumentIsCaughtNamingIt) {
  test::TempDir dir;
  const auto spec = edited(dir, "optional_inputs.json", [](ojson& s) {
    s["kernels"]["optional"]["arguments"].push_back({{"name", "n_tokens"}, {"type", "int32"}, {"value", "Nq"}});
  });
  std::vector<std::string> reasons;
  statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "takes 13 parameters, kernels.optional.arguments passes 14 arguments: "
                       "kernels.optional.arguments[13] (n_tokens, int32) has no parameter to go to"))
      << reasons.at(0);
}

TEST(SignatureCheck, AScalarOfTheWrongSizeIsCaughtNamingTheArgumentTheParameterAndBothSizes) {
  test::TempDir dir;
  const auto spec =
      edited(dir, "optional_inputs.json", [](ojson& s) { s["kernels"]["optional"]["arguments"][11]["type"] = "int32"; });
  const SweepOutcome out = sweep(spec, dir);
  std::vector<std::string> reasons;
  const auto n = statuses(out.leaderboard, &reasons);
  EXPECT_EQ(n.at("compile_failed"), 3) << testing::PrintToString(reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "kernels.optional.arguments[11] (nb_mask1, int32) is 4 bytes; parameter 11 `ulong nb_mask1` "
                       "of 'attn_optional' takes 8 bytes"))
      << reasons.at(0);
  EXPECT_FALSE(out.stopped_early.empty());
}

TEST(SignatureCheck, AValueWhereTheKernelTakesAPointerIsCaught) {
  test::TempDir dir;
  const auto spec = edited(dir, "optional_inputs.json", [](ojson& s) {
    s["kernels"]["optional"]["arguments"][3] = {{"name", "mask"}, {"type", "int64"}, {"value", "0"}};
  });
  std::vector<std::string> reasons;
  statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "kernels.optional.arguments[3] (mask, int64) is a value of 8 bytes; parameter 3 "
                       "`__global half* mask` of 'attn_optional' takes a pointer"))
      << reasons.at(0);
}

// ---- a pipeline of launches with their own signatures ----

TEST(LaunchPipeline, APrepassASplitPassAndAMergeWithTheirOwnSignaturesVerify) {
  test::TempDir dir;
  const nlohmann::json lb = sweep(example("split_pipeline.json"), dir).leaderboard;
  std::vector<std::string> reasons;
  const auto n = statuses(lb, &reasons);
  EXPECT_EQ(n.at("ok"), 2) << testing::PrintToString(reasons);  // SPLITS 2, and 4 with an empty split
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
  // Each launch records its own list: the workspace written by the prepass is the split pass's first argument.
  const auto& launches = lb.at("groups")[0].at("entries")[0].at("launches");
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].at("arguments").size(), 4u);
  EXPECT_EQ(launches[0].at("arguments")[1].at("kind"), "workspace");
  EXPECT_EQ(launches[1].at("arguments").size(), 9u);
  EXPECT_EQ(launches[1].at("arguments")[0].at("kind"), "workspace");
  EXPECT_EQ(launches[2].at("arguments").size(), 6u);
  EXPECT_EQ(launches[2].at("arguments")[3].at("name"), "o");
}

// The merge given the partial sums where the partial maxima belong: both lists are well-formed and the
// signatures agree, so only verification can tell, and it does in every configuration.
TEST(LaunchPipeline, TheMergeReadingTheWrongPartialBufferIsCaughtByVerification) {
  test::TempDir dir;
  const auto spec = edited(dir, "split_pipeline.json",
                           [](ojson& s) { s["kernels"]["pipeline"]["launches"][2]["arguments"][1] = "part_l"; });
  std::vector<std::string> reasons;
  const auto n = statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("incorrect"), 2) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
}

TEST(LaunchPipeline, ASplitLaunchMissingAnArgumentIsCaughtBeforeTheRunNamingTheLaunchAndTheParameter) {
  test::TempDir dir;
  const auto spec =
      edited(dir, "split_pipeline.json", [](ojson& s) { s["kernels"]["pipeline"]["launches"][1]["arguments"].erase(8); });
  std::vector<std::string> reasons;
  const auto n = statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("compile_failed"), 2) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "spec.json: kernel 'pipeline', launch 1 of 3: kernel 'attn_split' takes 9 parameters, "
                       "kernels.pipeline.launches[1].arguments passes 8 arguments: parameter 8 `int head_dim` gets no "
                       "argument"))
      << reasons.at(0);
}

// A launch without its own list takes the kernel's: here the merge's, given to a split pass that takes another.
TEST(LaunchPipeline, ALaunchWithoutItsOwnListTakesTheKernelsAndIsCheckedAgainstIt) {
  test::TempDir dir;
  const auto spec = edited(dir, "split_pipeline.json", [](ojson& s) {
    auto& k = s["kernels"]["pipeline"];
    k["arguments"] = k["launches"][2]["arguments"];
    k["launches"][1].erase("arguments");
  });
  std::vector<std::string> reasons;
  statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_TRUE(contains(reasons.at(0),
                       "launch 1 of 3: kernel 'attn_split' takes 9 parameters, kernels.pipeline.arguments passes 6 "
                       "arguments"))
      << reasons.at(0);
}

// ---- buffers with state ----

TEST(StateBuffers, RunningMaxAndSumResetToMinusInfinityAndZeroBeforeEveryRunVerify) {
  test::TempDir dir;
  std::vector<std::string> reasons;
  const auto n = statuses(sweep(example("state_buffers.json"), dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("ok"), 2) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
}

// Without their life cycle (role, init and reset: plain inputs, random, uploaded once per shape) the state a
// run starts from is not -inf and 0, and verification catches it in every configuration. Keeping the init
// alone would hide it from the first configuration: its first run sees the uploaded -inf and 0, exactly what
// a reset writes, and only later runs start from a previous run's final max and sum.
TEST(StateBuffers, RemovingTheResetIsCaughtAsIncorrectInEveryConfiguration) {
  test::TempDir dir;
  const auto spec = edited(dir, "state_buffers.json", [](ojson& s) {
    for (const char* b : {"running_max", "running_sum"}) {
      s["custom"]["buffers"][b].erase("role");
      s["custom"]["buffers"][b].erase("init");
      s["custom"]["buffers"][b].erase("reset");
    }
  });
  std::vector<std::string> reasons;
  auto n = statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("incorrect"), 2) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
}

// An output the kernel reads before writing, left without its init, keeps the NaN poison.
TEST(StateBuffers, AnOutputReadBeforeItIsWrittenNeedsItsInit) {
  test::TempDir dir;
  const auto spec = edited(dir, "state_buffers.json", [](ojson& s) {
    s["custom"]["buffers"]["o"].erase("init");
    s["custom"]["buffers"]["o"].erase("reset");
  });
  std::vector<std::string> reasons;
  auto n = statuses(sweep(spec, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("incorrect"), 2) << testing::PrintToString(reasons);
  EXPECT_TRUE(contains(reasons.at(0), "NaN/Inf")) << reasons.at(0);
}

// A custom operation with its own buffer names, verified by the attention operation's reference with the
// buffers bound to its roles: GQA, causal, an f32 mask per head, sinks, a custom scale and softcap.
TEST(RoleBoundReference, AnEngineKernelWithItsOwnNamesVerifiesAgainstTheFullAttentionReference) {
  test::TempDir dir;
  std::vector<std::string> reasons;
  const auto n = statuses(sweep(example("role_bound.json"), dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("ok"), 4) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);
}

// The binding is what the reference computes: leave softcap out of it and the soft-capping kernel is wrong
// everywhere; bind the mask without its layout and the size check names the buffer before anything runs.
TEST(RoleBoundReference, TheBindingsShapeIsWhatTheReferenceComputes) {
  test::TempDir dir;
  const auto uncapped =
      edited(dir, "role_bound.json", [](ojson& s) { s["custom"]["reference"]["attention"]["shape"].erase("softcap"); });
  std::vector<std::string> reasons;
  const auto n = statuses(sweep(uncapped, dir).leaderboard, &reasons);
  EXPECT_EQ(n.at("incorrect"), 4) << testing::PrintToString(reasons);
  EXPECT_EQ(n.size(), 1u) << testing::PrintToString(reasons);

  test::TempDir dir2;
  const auto shared_mask = edited(dir2, "role_bound.json",
                                  [](ojson& s) { s["custom"]["reference"]["attention"]["shape"]["mask_layout"] = "bqk"; });
  try {
    sweep(shared_mask, dir2);
    ADD_FAILURE() << "a mask of the wrong size for its layout was accepted";
  } catch (const std::exception& e) {
    EXPECT_TRUE(contains(e.what(),
                         "buffer 'M' (the attention reference's mask) has 360 elements; the attention "
                         "shape needs 90"))
        << e.what();
  }
}

TEST(RoleBoundReference, ABindingErrorNamesItsField) {
  const std::vector<std::pair<std::function<void(ojson&)>, std::string>> cases = {
      {[](ojson& s) { s["custom"]["reference"]["attention"]["roles"]["o"] = "Q"; },
       "custom.reference.attention.roles.o: buffer 'Q' is bound to o, the output"},
      {[](ojson& s) { s["custom"]["reference"]["attention"]["roles"].erase("k"); },
       "custom.reference.attention.roles: needs the role 'k'"},
      {[](ojson& s) { s["custom"]["reference"]["attention"]["roles"]["bias"] = "M"; },
       "custom.reference.attention.roles.bias: unknown role 'bias'"},
      {[](ojson& s) { s["custom"]["reference"]["attention"]["shape"]["Hq"] = "Hx"; },
       "custom.reference.attention.shape.Hq: unknown name 'Hx'"},
      {[](ojson& s) { s["custom"]["reference"]["attention"]["shape"]["mask"] = 1; },
       "custom.reference.attention.shape.mask: mask is on when a buffer is bound to the role 'mask'"},
      {[](ojson& s) { s["custom"]["reference"]["attention"]["shape"]["mask_layout"] = "bhkq"; },
       "custom.reference.attention.shape.mask_layout: 'bhkq' is not one of"},
      {[](ojson& s) { s["custom"]["reference"]["cpu"] = "attention"; }, "custom.reference: a reference is one of"},
  };
  for (const auto& [edit, want] : cases) {
    test::TempDir dir;
    const auto spec = edited(dir, "role_bound.json", edit);
    try {
      sweep(spec, dir);
      ADD_FAILURE() << "accepted: " << want;
    } catch (const std::exception& e) {
      EXPECT_TRUE(contains(e.what(), want)) << e.what();
    }
  }
}

}  // namespace
}  // namespace attn

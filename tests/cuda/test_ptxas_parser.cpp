// Golden tests of the ptxas report parser on real NVRTC 13.0 logs (tests/cuda/data/ptxas).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

std::string golden(const std::string& name) {
  return read_text_file(std::string(ATTN_TUNE_CUDA_TEST_DATA) + "/ptxas/" + name);
}

TEST(PtxasParser, Sm90SpillLog) {
  // spill.cu, --gpu-architecture=sm_90 -std=c++17 --ptxas-options=-v
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm90_spill.log"));
  EXPECT_EQ(r.gmem_bytes, 0);
  ASSERT_EQ(r.functions.size(), 3u);
  EXPECT_EQ(r.functions[0].name, "simple");
  EXPECT_EQ(r.functions[1].name, "register_pressure");
  EXPECT_EQ(r.functions[2].name, "dynamic_index");

  const PtxasFunction* simple = r.find("simple");
  ASSERT_NE(simple, nullptr);
  EXPECT_TRUE(simple->is_entry);
  EXPECT_EQ(simple->arch, "sm_90");
  EXPECT_EQ(simple->registers, 8);
  EXPECT_EQ(simple->barriers, 0);
  EXPECT_EQ(simple->stack_frame_bytes, 0);
  EXPECT_EQ(simple->spill_store_bytes, 0);
  EXPECT_EQ(simple->spill_load_bytes, 0);
  EXPECT_EQ(simple->smem_bytes, 0);
  EXPECT_FALSE(simple->cumulative_stack_bytes.has_value());
  EXPECT_TRUE(simple->cmem_bytes.empty());  // sm_90's report has no cmem[0]

  const PtxasFunction* pressure = r.find("register_pressure");
  ASSERT_NE(pressure, nullptr);
  EXPECT_EQ(pressure->registers, 64);
  EXPECT_EQ(pressure->stack_frame_bytes, 1304);
  EXPECT_EQ(pressure->spill_store_bytes, 2516);
  EXPECT_EQ(pressure->spill_load_bytes, 2660);
  EXPECT_EQ(pressure->cumulative_stack_bytes, 1304);

  const PtxasFunction* dyn = r.find("dynamic_index");
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(dyn->registers, 32);
  EXPECT_EQ(dyn->stack_frame_bytes, 1024);
  EXPECT_EQ(dyn->spill_store_bytes, 0);
  EXPECT_EQ(dyn->spill_load_bytes, 0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(PtxasParser, Sm80LogHasParameterBank) {
  // spill.cu, --gpu-architecture=sm_80 -std=c++17 --ptxas-options=-v
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm80_spill.log"));
  const PtxasFunction* simple = r.find("simple");
  ASSERT_NE(simple, nullptr);
  EXPECT_EQ(simple->arch, "sm_80");
  EXPECT_EQ(simple->registers, 8);
  ASSERT_EQ(simple->cmem_bytes.size(), 1u);
  EXPECT_EQ(simple->cmem_bytes.at(0), 360);
  const PtxasFunction* pressure = r.find("register_pressure");
  ASSERT_NE(pressure, nullptr);
  EXPECT_EQ(pressure->stack_frame_bytes, 1216);
  EXPECT_EQ(pressure->spill_store_bytes, 2352);
  EXPECT_EQ(pressure->spill_load_bytes, 2496);
  EXPECT_EQ(pressure->cumulative_stack_bytes, 1216);
  EXPECT_EQ(pressure->cmem_bytes.at(0), 372);
}

TEST(PtxasParser, SharedMemoryAndBarriers) {
  // defines.cu, --gpu-architecture=sm_90a ... -DBLOCK_M=128 -DHEAD_DIM=64
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm90a_defines.log"));
  const PtxasFunction* f = r.find("scale_rows");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->arch, "sm_90a");
  EXPECT_EQ(f->registers, 12);
  EXPECT_EQ(f->barriers, 1);
  EXPECT_EQ(f->smem_bytes, 512);  // float tile[BLOCK_M = 128]
  const PtxasFunction* add = r.find("add_one");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->smem_bytes, 0);
}

TEST(PtxasParser, ModuleConstantsAndMaxrregcountNotes) {
  // constants.cu, --gpu-architecture=sm_80 -std=c++17 --ptxas-options=-v -maxrregcount=32
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm80_constants_maxrreg.log"));
  EXPECT_EQ(r.gmem_bytes, 4);
  ASSERT_EQ(r.cmem_bytes.size(), 2u);
  EXPECT_EQ(r.cmem_bytes.at(3), 256);  // __constant__ float table[64]
  EXPECT_EQ(r.cmem_bytes.at(4), 8);
  ASSERT_EQ(r.functions.size(), 2u);  // the "Overriding ..." notes name no new function
  const PtxasFunction* dyn = r.find("dyn");
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(dyn->registers, 10);
  EXPECT_EQ(dyn->barriers, 1);
  EXPECT_EQ(dyn->cmem_bytes.at(0), 360);
  const PtxasFunction* pressure = r.find("pressure");
  ASSERT_NE(pressure, nullptr);
  EXPECT_EQ(pressure->registers, 64);
  EXPECT_EQ(pressure->spill_store_bytes, 2352);
}

TEST(PtxasParser, DeviceFunctionsAreNotEntries) {
  // device_function.cu, --gpu-architecture=sm_90 -std=c++17 --ptxas-options=-v
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm90_device_function.log"));
  EXPECT_EQ(r.gmem_bytes, 7);  // printf's format string
  const PtxasFunction* prints = r.find("prints");
  ASSERT_NE(prints, nullptr);
  EXPECT_EQ(prints->stack_frame_bytes, 16);
  EXPECT_EQ(prints->registers, 24);
  const PtxasFunction* caller = r.find("caller");
  ASSERT_NE(caller, nullptr);
  EXPECT_EQ(caller->stack_frame_bytes, 128);
  EXPECT_EQ(caller->registers, 40);
  const PtxasFunction* helper = r.find("_Z6helperPfi");
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->is_entry);
  EXPECT_EQ(helper->stack_frame_bytes, 0);
  EXPECT_FALSE(helper->registers.has_value());
  // The helper's properties do not leak into the entry before it.
  EXPECT_EQ(caller->stack_frame_bytes, 128);
}

TEST(PtxasParser, OlderNvccFormat) {
  const PtxasReport r = parse_ptxas_log(golden("nvcc12_style_handwritten.log"));
  EXPECT_EQ(r.gmem_bytes, 8);
  EXPECT_EQ(r.cmem_bytes.at(4), 72);
  const PtxasFunction* k = r.find("_Z6kernelPf");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->is_entry);
  EXPECT_EQ(k->registers, 255);
  EXPECT_FALSE(k->barriers.has_value());
  EXPECT_EQ(k->stack_frame_bytes, 8);
  EXPECT_EQ(k->spill_store_bytes, 4);
  EXPECT_EQ(k->spill_load_bytes, 4);
  EXPECT_EQ(k->smem_bytes, 4112);  // 4096+16
  EXPECT_EQ(k->cmem_bytes.at(0), 360);
  EXPECT_EQ(k->cmem_bytes.at(2), 8);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("Registers are spilled"), std::string::npos);
  const PtxasFunction* f = r.find("_Z4funcv");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->is_entry);
  const PtxasFunction* plain = r.find("plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->registers, 2);
  EXPECT_EQ(plain->stack_frame_bytes, 0);
}

TEST(PtxasParser, ResourcesFromReport) {
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm90_spill.log"));
  const KernelResources res = resources_from_ptxas(r, "register_pressure");
  EXPECT_EQ(res.registers, 64);
  EXPECT_EQ(res.private_mem_bytes, 1304);
  EXPECT_EQ(res.spill_store_bytes, 2516);
  EXPECT_EQ(res.spill_load_bytes, 2660);
  EXPECT_EQ(res.static_local_bytes, 0);
  EXPECT_FALSE(res.max_work_group_size.has_value());
  EXPECT_FALSE(res.theoretical_occupancy.has_value());
  const KernelResources none = resources_from_ptxas(r, "not_there");
  EXPECT_FALSE(none.registers.has_value());
}

TEST(PtxasParser, SerializedWgmmaNoteGoesToItsFunction) {
  // kernels/cuda/flash_attn_fwd_wgmma.cu at commit 99e1f97, -DQK_RS=2 -DOVERLAP=1 -DSTAGES=3 -DHEAD_DIM=128
  // -DBLOCK_N=64 -DBLOCK_M=64, --gpu-architecture=sm_90a: the note comes before the function's own report.
  const PtxasReport r = parse_ptxas_log(golden("nvrtc13_sm90a_wgmma_serialized.log"));
  ASSERT_EQ(r.functions.size(), 1u);
  const PtxasFunction* f = r.find("flash_attn_fwd_wgmma");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->is_entry);
  EXPECT_EQ(f->arch, "sm_90a");
  EXPECT_EQ(f->registers, 255);
  ASSERT_EQ(f->performance_notes.size(), 1u);
  EXPECT_NE(f->performance_notes[0].find("(C7514)"), std::string::npos);
  EXPECT_NE(f->performance_notes[0].find("serialized"), std::string::npos);

  const KernelResources res = resources_from_ptxas(r, "flash_attn_fwd_wgmma");
  ASSERT_EQ(res.compiler_notes.size(), 1u);
  EXPECT_EQ(res.to_json().at("compiler_notes").at(0).get<std::string>(), f->performance_notes[0]);

  // A clean report has none, and its JSON no key.
  const KernelResources clean = resources_from_ptxas(parse_ptxas_log(golden("nvrtc13_sm90_spill.log")), "simple");
  EXPECT_TRUE(clean.compiler_notes.empty());
  EXPECT_FALSE(clean.to_json().contains("compiler_notes"));
}

TEST(PtxasParser, EmptyAndGarbage) {
  EXPECT_TRUE(parse_ptxas_log("").functions.empty());
  const PtxasReport r = parse_ptxas_log(
      "kernel.cu(3): error: expected a \";\"\nptxas info    : Used 12 registers\n"
      "ptxas         .     bytes stack frame\n\n");
  EXPECT_TRUE(r.functions.empty());  // figures with no function before them are dropped
}

}  // namespace
}  // namespace attn

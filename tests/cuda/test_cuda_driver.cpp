// The driver loader and error classification; device listing where there is no driver.
#include <gtest/gtest.h>

#include <string>

#include "tuner/backend/cuda/cuda_device.hpp"
#include "tuner/backend/cuda/cuda_driver.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

TEST(CudaErrors, StickyErrorsAreClassified) {
  for (CUresult r : {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                     CUDA_ERROR_HARDWARE_STACK_ERROR, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ASSERT, CUDA_ERROR_LAUNCH_TIMEOUT,
                     CUDA_ERROR_INVALID_PC, CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_ECC_UNCORRECTABLE})
    EXPECT_TRUE(cu::is_sticky_error(r)) << r;
  for (CUresult r :
       {CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, CUDA_ERROR_NOT_READY})
    EXPECT_FALSE(cu::is_sticky_error(r)) << r;
}

TEST(CudaErrors, ThrowsByKindWithCallText) {
  try {
    cu::throw_error(CUDA_ERROR_ILLEGAL_ADDRESS, "cuEventSynchronize(stop)", "/x/y.cpp", 12, cu::Failure::launch);
    FAIL();
  } catch (const DeviceLost& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("cuEventSynchronize(stop)"), std::string::npos) << w;
    EXPECT_NE(w.find("/x/y.cpp:12"), std::string::npos) << w;
  }
  EXPECT_THROW(
      cu::throw_error(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "cuLaunchKernel(...)", __FILE__, __LINE__, cu::Failure::launch),
      LaunchError);
  EXPECT_THROW(cu::throw_error(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(&p, n)", __FILE__, __LINE__, cu::Failure::backend),
               BackendError);
  // The file is shown relative to the source tree.
  const std::string d =
      cu::describe_error(CUDA_ERROR_INVALID_VALUE, "cuFoo()", ATTN_TUNE_SOURCE_DIR "/tuner/backend/cuda/x.cpp", 7);
  EXPECT_NE(d.find("at tuner/backend/cuda/x.cpp:7"), std::string::npos) << d;
}

// The rest depends on whether this machine has a driver: CI and the development
// container have none, a GPU machine has one.
TEST(CudaDriver, ListingNeverThrows) {
  std::vector<std::string> notes;
  std::vector<DeviceInfo> devices;
  EXPECT_NO_THROW(devices = list_cuda_devices(notes));
  std::string why;
  if (!driver_available(&why)) {
    EXPECT_TRUE(devices.empty());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_FALSE(why.empty());
    EXPECT_NE(notes[0].find(why), std::string::npos) << notes[0];
    if (!driver_library_found()) {
      EXPECT_EQ(notes[0].rfind("cuda: no NVIDIA driver found (libcuda.so.1", 0), 0u) << notes[0];
    }
  } else {
    for (const auto& d : devices) {
      EXPECT_EQ(d.backend, "cuda");
      EXPECT_EQ(d.id.rfind("cuda:", 0), 0u);
      EXPECT_EQ(d.arch.rfind("sm_", 0), 0u);
      EXPECT_GT(d.compute_units, 0);
    }
  }
}

TEST(CudaDriver, NoDriverMeansBackendErrorOnOpen) {
  if (driver_available()) GTEST_SKIP() << "a CUDA driver is present";
  try {
    open_cuda_device(0);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:"), std::string::npos) << e.what();
  }
  // The non-throwing check has nothing to call and says nothing.
  EXPECT_EQ(cu::loaded_driver(), nullptr);
  EXPECT_EQ(ATTN_CU_NOTHROW(cuCtxSynchronize()), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_THROW(cu::driver(), BackendError);
}

}  // namespace
}  // namespace attn

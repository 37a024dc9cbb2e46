#include "tuner/device/offline_compiler.hpp"

#include <cstring>

#include "tuner/core/error.hpp"
#ifdef ATTN_TUNE_WITH_CUDA
#include "tuner/backend/cuda/cuda_compile.hpp"
#include "tuner/backend/cuda/cuda_device.hpp"
#include "tuner/backend/cuda/nvrtc_compiler.hpp"
#include "tuner/backend/cuda/occupancy.hpp"
#endif

namespace attn {
namespace {

#ifdef ATTN_TUNE_WITH_CUDA
class NvrtcOfflineCompiler final : public OfflineCompiler {
 public:
  std::string backend() const override { return "cuda"; }
  std::unique_ptr<Program> compile(const CompileRequest& request) const override { return compile_cuda_offline(request); }
  std::vector<std::string> supported_architectures() const override { return nvrtc_supported_archs(); }
  OfflineImage compile_image(const CompileRequest& request) const override {
    const NvrtcResult compiled = cuda_compile(request);
    OfflineImage image;
    image.format = compiled.is_cubin ? "cubin" : "ptx";
    // PTX comes back with its terminating NUL: the image holds the text only.
    const std::size_t size =
        compiled.is_cubin ? compiled.image.size() : compiled.image.size() - (compiled.image.empty() ? 0 : 1);
    image.bytes.resize(size);
    if (size) std::memcpy(image.bytes.data(), compiled.image.data(), size);
    image.arch = compiled.arch;
    image.compiler = compiled.compiler_version;
    image.options = compiled.options;
    for (const auto& entry : request.entries) image.resources[entry] = entry_resources(compiled, entry);
    return image;
  }
  void describe_launch(const std::string& arch, const Launch& launch, KernelResources& r) const override {
    if (const ArchLimits* limits = find_arch_limits(arch))
      if (const auto occ = theoretical_occupancy(*limits, r, launch)) {
        r.theoretical_occupancy = occ->occupancy;
        r.occupancy_limited_by = occ->limited_by;
      }
  }
};
#endif

}  // namespace

const OfflineCompiler& offline_compiler() {
#ifdef ATTN_TUNE_WITH_CUDA
  static const NvrtcOfflineCompiler compiler;
  return compiler;
#else
  throw UsageError("this attn-tune was built without the CUDA backend: compile needs --device to compile OpenCL kernels");
#endif
}

}  // namespace attn

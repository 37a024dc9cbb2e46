// Compiling without a device: a backend that can compile for a named
// architecture with no driver or GPU present (CUDA through NVRTC and ptxas'
// report) offers it here, so that `compile` needs no backend #ifdef.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tuner/device/device.hpp"

namespace attn {

// A compiled program as a loader takes it (a launch bundle's file).
struct OfflineImage {
  std::string format;                                // "cubin" or "ptx"
  std::vector<std::byte> bytes;                      // PTX: the text, without a terminating NUL
  std::string arch;                                  // what it was compiled for
  std::string compiler;                              // which, and its version ("nvrtc 13.0", "nvcc 13.0, V13.0.88")
  std::vector<std::string> options;                  // the compiler's options, as given
  std::map<std::string, KernelResources> resources;  // per entry; a templated entry names its lowered symbol
};

class OfflineCompiler {
 public:
  virtual ~OfflineCompiler() = default;
  virtual std::string backend() const = 0;  // the spec source it compiles: "cuda"
  // Safe to call from several threads at once. Throws CompileError with the log.
  virtual std::unique_ptr<Program> compile(const CompileRequest& request) const = 0;
  // The loadable image of REQUEST. Throws CompileError with the log.
  virtual OfflineImage compile_image(const CompileRequest& request) const = 0;
  // Theoretical occupancy of LAUNCH on ARCH into RESOURCES, when the architecture's limits are known.
  virtual void describe_launch(const std::string& arch, const Launch& launch, KernelResources& resources) const = 0;
  // What the compiler accepts as an architecture ("sm_90", ...), newest last.
  virtual std::vector<std::string> supported_architectures() const = 0;
};

// The offline compiler built into this attn-tune; throws UsageError saying why
// there is none (built without the CUDA backend).
const OfflineCompiler& offline_compiler();

}  // namespace attn

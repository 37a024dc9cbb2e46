// `attn-tune bench --emit-launch DIR`: what another harness needs to launch one
// configuration exactly as attn-tune does, without re-implementing attn-tune.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "tuner/spec/spec.hpp"

namespace attn::cli {

// Writes, under DIR, for CONFIG of KERNEL on each of its (selected) shapes:
//   launch.json          the manifest (schema attn-tune.launch/1): spec and source
//                        identity, and per shape its fields, the kernel arguments in
//                        order (buffers with sizes, the workspace, the params struct),
//                        the launches (entry, grid, block, dynamic shared memory), the
//                        binary it runs, FLOP and byte counts, ptxas' resources
//   <kernel>.<n>.cubin   CUDA: each distinct -D set compiled once with NVRTC, with
//                        attn-tune's options (or PTX for a compute_XY arch)
//   <shape>.params.bin   the params struct's bytes, as passed by value
// OpenCL sources are not compiled (the driver builds them): the manifest names the
// source and the build options instead. No device is needed. Returns the number of
// shapes written; a shape the constraints exclude is recorded with the reason.
int write_launch_bundle(const Spec& spec, const KernelSpec& kernel, const Config& config, std::uint64_t seed,
                        const std::filesystem::path& dir);

}  // namespace attn::cli
